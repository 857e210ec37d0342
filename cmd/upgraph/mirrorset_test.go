package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/tools/mirrorset"
)

func init() {
	// A cluster path (the demo tree has no catalog): it works and writes
	// out/; the operator flags are checked before anything is read.
	flagTestBases["mirror-set"] = flagBase{args: "mirror-set --source {tree} --channel stable-4.16 --from 4.15.0 --to 4.16.1 --out out"}
	invalidFlags["mirror-set --installed"] = badFlag{bad: []string{"", "missing", "emptydir", "file.txt"}} // file.txt: no --catalog (and no list)
	invalidFlags["mirror-set --catalog"] = badFlag{bad: []string{"", "Bad_Name=emptydir", "x=missing"}}    // and none without --installed
	invalidFlags["mirror-set --olm"] = badFlag{bad: []string{"", "v2"}}
	invalidFlags["mirror-set --from"] = badFlag{bad: badVersions}
	invalidFlags["mirror-set --to"] = badFlag{bad: badVersions}
	invalidFlags["mirror-set --channel"] = badFlag{bad: badChannelNames}
	// A missing directory is made; junkdir holds something that is not a
	// mirror-set.
	invalidFlags["mirror-set --out"] = badFlag{bad: []string{"", "file.txt", "junkdir", "/"}}
}

// mirrorSetInstalled writes an installed-operators list.
func mirrorSetInstalled(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "installed.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readDir maps the files below dir to their content.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMirrorSetCommand: mirror-set plans operators from a tree's
// catalogs and the cluster's path in one ImageSetConfiguration and image
// list (pinned in testdata/mirror-set/, -update rewrites them), writes
// filtered catalogs that validate accepts, replaces a previous set, and
// writes nothing when an install has no path.
func TestMirrorSetCommand(t *testing.T) {
	tree := operatorTree(t)
	installed := mirrorSetInstalled(t, `# two catalogs of the tree
- {catalog: div, package: div, channel: stable, version: 1.0.0}
- {catalog: mq, package: mq, channel: v2.0, version: 1.0.1}
- {catalog: mq, package: mq, channel: v1.1, version: mq.v1.0.1, target: 1.1.1}
`)
	out := filepath.Join(t.TempDir(), "set")
	args := []string{"--source", tree, "--catalog", "div", "--catalog", "mq", "--installed", installed,
		"--channel", "fast-4.16", "--from", "4.15.0", "--to", "4.16.2", "--out", out}
	stdout, stderr, code := runCommand(mirrorSetCommand(), args...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, stdout, stderr)
	}
	files := readDir(t, out)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	})
	want := []string{"catalogs/div/div/catalog.json", "catalogs/mq/mq/catalog.json", "images.txt", "imageset-config.yaml", "mirror-set.json"}
	if !slices.Equal(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	checkMirrorSetGolden(t, "combined.txt", strings.ReplaceAll(stdout, out, "OUT"))
	checkMirrorSetGolden(t, "combined-imageset-config.yaml", strings.ReplaceAll(files["imageset-config.yaml"], tree, "TREE"))
	checkMirrorSetGolden(t, "combined-images.txt", files["images.txt"])
	// The image list is sorted, once each, with the release payload.
	lines := strings.Split(strings.TrimSuffix(files["images.txt"], "\n"), "\n")
	if !slices.IsSorted(lines) || len(slices.Compact(slices.Clone(lines))) != len(lines) {
		t.Errorf("images.txt is not sorted and unique:\n%s", files["images.txt"])
	}
	var rep mirrorset.Report
	if err := json.Unmarshal([]byte(files["mirror-set.json"]), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Operators == nil || rep.Release == nil || !rep.Release.Found || rep.Images != len(lines) || len(rep.Files) != len(want) {
		t.Errorf("mirror-set.json: %s", files["mirror-set.json"])
	}
	// The filtered catalogs validate.
	for _, c := range []string{"div", "mq"} {
		if o, e, code := runCommand(validateCommand(), "--catalog", filepath.Join(out, "catalogs", c)); code != 0 {
			t.Errorf("validate --catalog %s: exit %d\n%s%s", c, code, o, e)
		}
	}
	// --format json prints mirror-set.json; running again replaces the set.
	stdout, stderr, code = runCommand(mirrorSetCommand(), append(args, "--format", "json")...)
	if code != 0 || !strings.Contains(stdout, `"operators": {`) {
		t.Errorf("again, JSON: exit %d\n%s%s", code, stdout, stderr)
	}
	if again := readDir(t, out); again["mirror-set.json"] != stdout {
		t.Errorf("mirror-set.json is not what --format json printed")
	}
}

func checkMirrorSetGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "mirror-set", name)
	if *updateDocs {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs (-update rewrites it; review the difference):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestMirrorSetCommandErrors: exit 1 without writing when an install or
// the cluster has no path; 2 on trouble, nothing written either.
func TestMirrorSetCommandErrors(t *testing.T) {
	tree := operatorTree(t)
	div := filepath.Join(operatorFixtures, "divergence")
	stranded := mirrorSetInstalled(t, "- {package: skipper, version: 1.0.0}\n")
	one := mirrorSetInstalled(t, "- {package: div, version: 1.0.0}\n")
	unknown := mirrorSetInstalled(t, "- {package: div, version: 9.9.9}\n")
	invalid := mirrorSetInstalled(t, "- {package: ranger, version: 1.0.0}\n")
	junk := t.TempDir()
	if err := os.WriteFile(filepath.Join(junk, "keep.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
		err  string
	}{
		{"stranded", []string{"--source", tree, "--catalog", "skipper", "--installed", stranded}, 1,
			"skipper/skipper@stable 1.0.0 → head: no OLM v0 path: stranded.", ""},
		{"stranded v1 works", []string{"--source", tree, "--catalog", "skipper", "--installed", stranded, "--olm", "v1"}, 0,
			"skipper.v1.0.0 → skipper.v1.1.0 → skipper.v1.2.0", ""},
		{"dir source", []string{"--catalog", "d=" + div, "--installed", one}, 0, "catalog d: 2 bundles of 4, 1 package, 4 images", ""},
		{"bare dir source", []string{"--catalog", div, "--installed", one, "--format", "json"}, 0, `"name": "catalog"`, ""},
		{"no cluster path", []string{"--source", tree, "--channel", "fast-4.16", "--from", "4.16.2", "--to", "4.16.0"}, 1,
			"No update path from 4.16.2 to 4.16.0 in fast-4.16 (amd64).", ""},
		{"unknown version", []string{"--catalog", div, "--installed", unknown}, 2, "", `no bundle named or versioned "9.9.9"`},
		{"invalid package", []string{"--catalog", filepath.Join(operatorFixtures, "skiprange-heads"), "--installed", invalid}, 2, "", "opm validate rejects it"},
		{"two bare sources", []string{"--catalog", div, "--catalog", div, "--installed", one}, 2, "", "name each: NAME=SOURCE"},
		{"unknown catalog", []string{"--catalog", "d=" + div, "--installed", mirrorSetInstalled(t, "- {catalog: e, package: div, version: 1.0.0}\n")}, 2, "", `no catalog "e" (given: d)`},
		{"nothing", []string{}, 2, "", "nothing to plan"},
		{"installed without catalog", []string{"--installed", one}, 2, "", "--installed needs --catalog"},
		{"out not a set", []string{"--catalog", div, "--installed", one, "--out", junk}, 2, "", "holds no mirror-set.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "set")
			args := slices.Clone(tc.args)
			if !slices.Contains(tc.args, "--out") {
				args = append(args, "--out", out)
			}
			stdout, stderr, code := runCommand(mirrorSetCommand(), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s\n%s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.err) {
				t.Errorf("want %q on stdout and %q on stderr:\n%s\n%s", tc.out, tc.err, stdout, stderr)
			}
			_, err := os.Stat(out)
			if written := err == nil; written != (tc.code == 0) {
				t.Errorf("exit %d and --out written: %v", code, written)
			}
		})
	}
	if d := readDir(t, junk); len(d) != 1 {
		t.Errorf("the refused --out changed: %v", d)
	}
}

// TestOperatorPathsFromImage: path --catalog and mirror-set read a
// catalog image from a registry, as generate does, and the
// ImageSetConfiguration names the image pinned by digest.
func TestOperatorPathsFromImage(t *testing.T) {
	work := t.TempDir()
	env := catalogEnv(t)
	reg := rt.Start(t)
	ref := reg.Host + "/catalogs/div:v1"
	digest := rt.Push(t, ref, catalogImage(t, filepath.Join(operatorFixtures, "divergence")))
	stdout, stderr, code := run(t, work, env, "path", "--catalog", "image:"+ref, "--plain-http", "--package", "div", "--from", "1.0.0", "--olm", "v1")
	if code != 0 || !strings.Contains(stdout, "OLM v1: div.v1.0.0 (1.0.0) → div.v1.3.0 (1.3.0)") {
		t.Fatalf("path: exit %d\n%s%s", code, stdout, stderr)
	}
	write(t, filepath.Join(work, "installed.yaml"), "- {package: div, version: 1.0.0}\n")
	stdout, stderr, code = run(t, work, env, "mirror-set", "--catalog", "div="+ref, "--plain-http",
		"--installed", "installed.yaml", "--out", "set")
	if code != 0 {
		t.Fatalf("mirror-set: exit %d\n%s%s", code, stdout, stderr)
	}
	isc := string(mustRead(t, filepath.Join(work, "set", "imageset-config.yaml")))
	if want := `- catalog: "` + reg.Host + `/catalogs/div@` + digest + `"`; !strings.Contains(isc, want) || strings.Contains(isc, "not an image") {
		t.Errorf("the ImageSetConfiguration does not name %s:\n%s", want, isc)
	}
}
