package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/bundletest"
)

// binary is upgraph built once for the tests that need a real process
// (exit codes, signals, working directories).
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "upgraph-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "upgraph")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	// The commands tests run keep release scrapes and catalogs in the
	// user cache directory unless told otherwise: keep them in a
	// temporary one, not the real one (its entries would outlive the
	// tests, and a warm cache would hide work the tests mean to do). Go
	// commands keep their build cache where it was.
	if err := testCacheDir(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testCacheDir points XDG_CACHE_HOME (what os.UserCacheDir gives on
// Linux and the BSDs) at a new directory under dir, with GOCACHE set to
// the build cache in use so that go commands run by tests do not start
// cold.
func testCacheDir(dir string) error {
	if os.Getenv("GOCACHE") == "" {
		if user, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(user, "go-build")) // go's own default
		}
	}
	cache := filepath.Join(dir, "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		return err
	}
	return os.Setenv("XDG_CACHE_HOME", cache)
}

// run executes upgraph in dir with extra environment and returns stdout,
// stderr and the exit code.
func run(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// treeDigest maps every file below dir to its sha256, with the staging
// and lock files of the parent excluded by construction.
func treeDigest(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDemo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tree")
	stdout, stderr, code := run(t, ".", nil, "generate", "--demo", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 88 files and the gzip copies of the 12 + 52 graphs and the empty graph.
	if !strings.Contains(stdout, "wrote 153 files (12 channel × arch graphs, 52 per-version graphs) to "+out) {
		t.Errorf("stdout = %q", stdout)
	}
	for _, f := range []string{"index.json", "graph/amd64/stable-4.16.json", "graph/arm64/fast-4.16/4.16.2.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestBadInput: every kind of broken input fails with a message naming
// the file (and line), exit status 1, and leaves the published tree as it was.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name       string
		breakInput func(t *testing.T, gd, rel string)
		want       []string
	}{
		{"missing version file", func(t *testing.T, gd, _ string) { os.Remove(filepath.Join(gd, "version")) },
			[]string{"graph-data version file", "no such file"}},
		{"invalid version", func(t *testing.T, gd, _ string) { write(t, filepath.Join(gd, "version"), "v1.2.0\n") },
			[]string{"version:1", "not a valid semver"}},
		{"unsupported major version", func(t *testing.T, gd, _ string) { write(t, filepath.Join(gd, "version"), "2.0.0\n") },
			[]string{"version:1", "unrecognized graph-data version 2.0.0"}},
		{"malformed YAML", func(t *testing.T, gd, _ string) {
			write(t, filepath.Join(gd, "blocked-edges", "4.16.1.yaml"), "to: 4.16.1\nfrom: [4.15\n")
		}, []string{"blocked-edges/4.16.1.yaml:", "invalid YAML"}},
		{"regex does not compile", func(t *testing.T, gd, _ string) {
			write(t, filepath.Join(gd, "blocked-edges", "4.16.1.yaml"), "to: 4.16.1\nfrom: 4[.]15[.](0\n")
		}, []string{"blocked-edges/4.16.1.yaml:2", "does not compile"}},
		{"invalid semver in a channel", func(t *testing.T, gd, _ string) {
			write(t, filepath.Join(gd, "channels", "stable-4.15.yaml"), "name: stable-4.15\nversions:\n- 4.15.0\n- 4.15\n")
		}, []string{"channels/stable-4.15.yaml:4", "not a valid semver"}},
		{"channel name without dash", func(t *testing.T, gd, _ string) {
			write(t, filepath.Join(gd, "channels", "stable.yaml"), "name: stable\nversions: [4.15.0]\n")
		}, []string{"channels/stable.yaml:1", "has no '-'"}},
		{"malformed raw metadata", func(t *testing.T, gd, _ string) {
			write(t, filepath.Join(gd, "raw", "metadata.json"), "{\n  \"4.1.0\": {\"k\": 1}\n}\n")
		}, []string{"raw/metadata.json", "line 2"}},
		{"cycle in release metadata", func(t *testing.T, _, rel string) {
			p := filepath.Join(rel, "4.15.0+amd64.json")
			data, _ := os.ReadFile(p)
			write(t, p, strings.Replace(string(data), `"previous": []`, `"previous": ["4.15.1"]`, 1))
		}, []string{"cycle", "4.15.0+amd64", "4.15.1+amd64", "4.15.0+amd64.json"}},
		{"same version, different payload", func(t *testing.T, _, rel string) {
			data, _ := os.ReadFile(filepath.Join(rel, "4.16.0+amd64.json"))
			write(t, filepath.Join(rel, "zz-duplicate.json"), strings.Replace(string(data), "sha256:c5e6", "sha256:0000", 1))
		}, []string{"4.16.0+amd64 is provided twice with different payloads", "4.16.0+amd64.json", "zz-duplicate.json"}},
		{"invalid semver in release metadata", func(t *testing.T, _, rel string) {
			write(t, filepath.Join(rel, "bad.json"), "{\n  \"kind\": \"cincinnati-metadata-v0\",\n  \"version\": \"4.16\",\n  \"payload\": \"x@sha256:1\",\n  \"arch\": \"amd64\"\n}\n")
		}, []string{"bad.json:3", "version", "not a valid semver"}},
		{"malformed release JSON", func(t *testing.T, _, rel string) {
			write(t, filepath.Join(rel, "bad.json"), "{\n  \"kind\": \"cincinnati-metadata-v0\",\n  \"version\": 4\n}\n")
		}, []string{"bad.json", "line 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			gd, rel, out := filepath.Join(base, "gd"), filepath.Join(base, "rel"), filepath.Join(base, "out")
			bundletest.CopyTree(t, "../../testdata/demo/graph-data", gd)
			bundletest.CopyTree(t, "../../testdata/demo/releases", rel)
			args := []string{"generate", "--releases", "metadata:" + rel, "--graph-data", gd, "--out", out}
			if _, stderr, code := run(t, base, nil, args...); code != 0 {
				t.Fatalf("good input failed: %s", stderr)
			}
			before := treeDigest(t, out)
			tc.breakInput(t, gd, rel)
			_, stderr, code := run(t, base, nil, args...)
			if code != 1 {
				t.Errorf("exit %d, want 1; stderr: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if after := treeDigest(t, out); !maps.Equal(before, after) {
				t.Error("the published tree changed")
			}
			if entries, _ := os.ReadDir(base); len(entries) != 3 { // gd, rel, out: the lock goes with the run
				t.Errorf("leftovers next to the output: %v", entries)
			}
		})
	}
}

func command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	return cmd
}

// TestSelectOutputs: --arch and --channel limit what is written.
func TestSelectOutputs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tree")
	if _, stderr, code := run(t, ".", nil, "generate", "--demo", "--out", out, "--arch", "arm64,s390x", "--channel", "^stable-"); code != 0 {
		t.Fatal(stderr)
	}
	files := treeDigest(t, out)
	for _, want := range []string{"graph/arm64/stable-4.16.json", "graph/arm64/stable-4.15/4.15.2.json", "graph/s390x/stable-4.16.json"} {
		if _, ok := files[want]; !ok {
			t.Errorf("missing %s", want)
		}
	}
	for name := range files {
		if strings.HasPrefix(name, "graph/amd64/") || strings.Contains(name, "fast-") || strings.Contains(name, "candidate-") {
			t.Errorf("%s written although not selected", name)
		}
	}
	// An arch without releases is answered with an empty graph, as upstream.
	body, err := os.ReadFile(filepath.Join(out, "graph/s390x/stable-4.16.json"))
	if err != nil || string(body) != `{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}` {
		t.Errorf("s390x graph = %s, %v", body, err)
	}
}

// TestGenerateRefusesArguments: flags after an argument are not parsed,
// so an argument is refused rather than the flags after it ignored.
func TestGenerateRefusesArguments(t *testing.T) {
	work := t.TempDir()
	_, stderr, code := run(t, work, nil, "generate", "--out", "x", "--demo", "extra", "--no-viewer")
	if code == 0 || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "x")); err == nil {
		t.Errorf("a refused generate wrote --out")
	}
}
