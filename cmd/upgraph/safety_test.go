package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// demoInputs copies the demo's releases and graph-data to dir, for tests
// that change one of them.
func demoInputs(t *testing.T, dir string) (releases, graphData string) {
	t.Helper()
	releases, graphData = filepath.Join(dir, "releases"), filepath.Join(dir, "graph-data")
	for src, dst := range map[string]string{"../../testdata/demo/releases": releases, "../../testdata/demo/graph-data": graphData} {
		if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v: %s", err, out)
		}
	}
	return releases, graphData
}

// Issue 15, item 1: generate --out through a symbolic link used to turn
// the link into a directory and delete the target's per-version
// directories, with exit 0. Now the target is replaced atomically and the
// link stays a link.
func TestGenerateThroughSymlink(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "T")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", "T"); code != 0 {
		t.Fatal(stderr)
	}
	before := treeDigest(t, target)
	if err := os.Symlink("T", filepath.Join(base, "L")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, base, []string{"SOURCE_DATE_EPOCH=1700000000"}, "generate", "--demo", "--out", "L"); code != 0 {
		t.Fatal(stderr)
	}
	if st, err := os.Lstat(filepath.Join(base, "L")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("L is no longer a symbolic link: %v %v", st, err)
	}
	if _, stderr, code := run(t, base, nil, "verify", "T"); code != 0 {
		t.Fatalf("verify T after a generation through L: %s", stderr)
	}
	after := treeDigest(t, target)
	if len(after) != len(before) {
		t.Errorf("T holds %d files after a generation through L, %d before", len(after), len(before))
	}
	if after["index.json"] == before["index.json"] {
		t.Error("T was not replaced by the generation written through L")
	}
	entries, _ := os.ReadDir(base)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The lock goes with the run; the generation replaced is kept beside
	// T (the directory replaced) as the next run's spare.
	if strings.Join(names, " ") != ".T.upgraph-spare L T" {
		t.Errorf("beside the tree: %v", names)
	}
}

// Issue 15, item 2: a generation that would shrink what clusters see, or
// give them nothing, is refused with the old tree untouched, and the
// message names what would disappear. Each case used to replace a full
// tree with exit 0.
func TestGenerateShrinkGuard(t *testing.T) {
	base := t.TempDir()
	releases, graphData := demoInputs(t, base)
	out := filepath.Join(base, "out")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	good := treeDigest(t, out)
	write(t, filepath.Join(base, "empty.json"), `{"nodes":[],"edges":[]}`)
	noChannels := filepath.Join(base, "gd-no-channels")
	if err := exec.Command("cp", "-r", graphData, noChannels).Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(noChannels, "channels")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(noChannels, "channels"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"empty graph file", []string{"--releases", "graph:empty.json", "--graph-data", graphData},
			[]string{"the new generation is empty: no release", "no per-version graph", out + " was not written", "--allow-empty"}},
		{"graph-data without channels", []string{"--releases", "metadata:" + releases, "--graph-data", noChannels},
			[]string{"empty: no channel, no per-version graph"}},
		{"channel typo", []string{"--demo", "--channel", "zzz"}, []string{"no channel"}},
		{"arch without releases", []string{"--demo", "--arch", "s390x"}, []string{"no per-version graph"}},
		{"one channel of six", []string{"--demo", "--channel", "^stable-4.16$"},
			[]string{"--out " + out, "channels 6 → 1, 5 dropped (83.3%): candidate-4.15, candidate-4.16, fast-4.15, fast-4.16, stable-4.15", "per-version graphs 52 → 10", "unchanged", "--force"}},
		{"one arch of two", []string{"--demo", "--arch", "amd64"}, []string{"architectures dropped: arm64 (had: amd64, arm64)"}},
		{"threshold stricter", []string{"--demo", "--channel", "-4.16$", "--shrink-threshold", "0.2"}, []string{"channels 6 → 3, 3 dropped (50%)", "the threshold is 20%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"generate", "--out", out}, tc.args...)
			_, stderr, code := run(t, base, []string{"SOURCE_DATE_EPOCH=1700000000"}, args...)
			if code == 0 {
				t.Fatalf("exit 0, want a refusal")
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if got := treeDigest(t, out); !maps.Equal(got, good) {
				t.Fatal("the tree changed")
			}
		})
	}
	// Deliberate: --force shrinks, --allow-empty empties.
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out, "--channel", "^stable-4.16$", "--force"); code != 0 {
		t.Fatalf("--force: %s", stderr)
	}
	if got := treeDigest(t, out); len(got) >= len(good) {
		t.Errorf("--force: %d files, want fewer than %d", len(got), len(good))
	}
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out, "--channel", "zzz", "--force"); code == 0 || !strings.Contains(stderr, "--allow-empty") {
		t.Fatalf("--force alone wrote an empty generation: %s", stderr)
	}
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", out, "--channel", "zzz", "--force", "--allow-empty"); code != 0 {
		t.Fatalf("--allow-empty: %s", stderr)
	}
	// mirror --out replaces a tree too, under the same guard.
	full := filepath.Join(base, "full")
	if _, stderr, code := run(t, base, nil, "generate", "--demo", "--out", full); code != 0 {
		t.Fatal(stderr)
	}
	mirrored := filepath.Join(base, "mirrored")
	if _, stderr, code := run(t, base, nil, "mirror", "--from", full, "--out", mirrored); code != 0 {
		t.Fatal(stderr)
	}
	before := treeDigest(t, mirrored)
	if _, stderr, code := run(t, base, nil, "mirror", "--from", full, "--out", mirrored, "--channel", "^fast-"); code == 0 || !strings.Contains(stderr, "channels 6 → 2") {
		t.Fatalf("mirror shrinking a tree: exit %d, %s", code, stderr)
	}
	if got := treeDigest(t, mirrored); !maps.Equal(got, before) {
		t.Fatal("mirror changed the tree it refused to replace")
	}
}

// Outputs that are not a generation's place are refused before any work,
// and nothing is written anywhere (issue 15, item 6).
func TestGenerateRefusesOutputs(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, "mine", "notes.txt"), "my data")
	write(t, filepath.Join(base, "file"), "x")
	write(t, filepath.Join(base, "www", "index.json"), `{"format":1,"site":"mine"}`)
	write(t, filepath.Join(base, "www", "photos", "a.txt"), "a")
	for _, tc := range []struct{ out, want string }{
		{"", "--out: empty path"},
		{"/", "the file system root cannot be replaced"},
		{"mine", "--out mine exists, is not empty and holds no upgraph generation"},
		{"file", "exists and is not a directory"},
		// Another program's index.json is not a generation, and --force
		// does not make it one.
		{"www", "--out www exists, is not empty and holds no upgraph generation"},
	} {
		for _, force := range []bool{false, true} {
			args := []string{"generate", "--demo", "--out", tc.out}
			if force {
				args = append(args, "--force")
			}
			_, stderr, code := run(t, base, nil, args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v: exit %d, stderr %q, want %q", args, code, stderr, tc.want)
			}
		}
	}
	if got := treeDigest(t, filepath.Join(base, "www")); len(got) != 2 {
		t.Errorf("a refused web site's files: %v", got)
	}
	if _, err := os.Stat("/.upgraph-lock"); err == nil {
		t.Error("--out / left /.upgraph-lock")
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 3 {
		t.Errorf("refused outputs left files: %v", entries)
	}
	if data, _ := os.ReadFile(filepath.Join(base, "mine", "notes.txt")); string(data) != "my data" {
		t.Error("a refused output's content changed")
	}
}
