package viewer_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/metas"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/tree/version"
	"github.com/upgraph/upgraph/viewer"
)

// TestFiles: the viewer is index.html plus files under viewer/, every file
// a page or a script refers to is among them, and nothing refers to
// another host (the viewer must work without network access).
func TestFiles(t *testing.T) {
	files := viewer.Files()
	for _, name := range []string{"index.html", "viewer/app.js", "viewer/graph.js", "viewer/layout-worker.js", "viewer/style.css",
		"viewer/cytoscape.min.js", "viewer/dagre.min.js", "viewer/cytoscape.LICENSE.txt", "viewer/dagre.LICENSE.txt"} {
		if len(files[name]) == 0 {
			t.Errorf("Files() lacks %s", name)
		}
	}
	for name := range files {
		if name != "index.html" && !strings.HasPrefix(name, viewer.Dir) {
			t.Errorf("Files() has %s, outside %s", name, viewer.Dir)
		}
	}
	// Returned slices are the caller's.
	files["index.html"][0] = 'X'
	if viewer.Files()["index.html"][0] == 'X' {
		t.Error("Files() shares its slices between calls")
	}

	refs := map[string]*regexp.Regexp{
		"index.html":              regexp.MustCompile(`(?:src|href)="([^"]+)"`),
		"viewer/app.js":           regexp.MustCompile(`(?:from '|new Worker\('|loadScript\(')([^']+)'`),
		"viewer/layout-worker.js": regexp.MustCompile(`importScripts\('([^']+)'\)`),
		"viewer/style.css":        regexp.MustCompile(`url\(([^)]+)\)`),
	}
	for name, re := range refs {
		page := viewer.Files()[name]
		for _, m := range re.FindAllSubmatch(page, -1) {
			ref := string(m[1])
			if strings.HasPrefix(ref, "data:") {
				continue
			}
			if strings.Contains(ref, "//") || strings.HasPrefix(ref, "/") {
				t.Errorf("%s refers to %s, not a relative path", name, ref)
				continue
			}
			// app.js and the worker are under viewer/; URLs in app.js
			// other than imports are relative to the page (the root).
			resolved := ref
			if name == "viewer/layout-worker.js" || strings.HasPrefix(ref, "./") {
				resolved = filepath.ToSlash(filepath.Join("viewer", ref))
			}
			if _, ok := viewer.Files()[resolved]; !ok {
				t.Errorf("%s refers to %s (%s), which is not among the files", name, ref, resolved)
			}
		}
	}
	html := string(viewer.Files()["index.html"])
	if !strings.Contains(html, "Content-Security-Policy") || !strings.Contains(html, "connect-src 'self'") {
		t.Error("index.html has no Content-Security-Policy limiting connections to its own origin")
	}
}

// TestVendoredVersions: assets/ holds what build.sh copies from the
// versions package-lock.json pins, and package.json pins exact versions.
func TestVendoredVersions(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
			Resolved  string `json:"resolved"`
		} `json:"packages"`
	}
	readJSON(t, "package.json", &pkg)
	readJSON(t, "package-lock.json", &lock)
	for name, v := range pkg.Dependencies {
		if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
			t.Errorf("package.json: %s@%s is not an exact version", name, v)
		}
		if got := lock.Packages["node_modules/"+name].Version; got != v {
			t.Errorf("package-lock.json has %s@%s, package.json pins %s", name, got, v)
		}
	}
	data, err := os.ReadFile("assets/VERSIONS.txt")
	if err != nil {
		t.Fatal(err)
	}
	var vendored []string
	for sc := bufio.NewScanner(bytes.NewReader(data)); sc.Scan(); {
		nameVersion, integrity, _ := strings.Cut(sc.Text(), " ")
		at := strings.LastIndex(nameVersion, "@")
		name, v := nameVersion[:at], nameVersion[at+1:]
		p, ok := lock.Packages["node_modules/"+name]
		if !ok || p.Version != v || p.Integrity != integrity {
			t.Errorf("assets/VERSIONS.txt: %s %s; package-lock.json: %s %s (run build.sh)", nameVersion, integrity, p.Version, p.Integrity)
		}
		vendored = append(vendored, name)
	}
	for name := range pkg.Dependencies {
		if !slices.Contains(vendored, name) {
			t.Errorf("%s is not in assets/VERSIONS.txt (run build.sh)", name)
		}
	}
	// The vendored cytoscape is the version pinned.
	if v := pkg.Dependencies["cytoscape"]; !bytes.Contains(viewer.Files()["viewer/cytoscape.min.js"], []byte(`.version="`+v+`"`)) {
		t.Errorf("viewer/cytoscape.min.js is not cytoscape %s", v)
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// nodeBinary returns the node executable; without one the test is
// skipped, except in CI, where Node.js is installed.
func nodeBinary(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	return node
}

// TestNode runs the JavaScript unit tests (test/*.test.js): SemVer
// precedence, file names, and update-path planning against every vector of
// tools/path/testdata/vectors.json, the ones the Go planner passes.
func TestNode(t *testing.T) {
	node := nodeBinary(t)
	vectors, err := filepath.Abs("../tools/path/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(vectors); err != nil {
		t.Fatalf("the shared path vectors: %v", err)
	}
	tests, _ := filepath.Glob("test/*.test.js")
	cmd := exec.Command(node, append([]string{"--test", "--test-reporter=tap"}, tests...)...)
	cmd.Env = append(os.Environ(), "UPGRAPH_PATH_VECTORS="+vectors)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	// Every vector ran (a missing file is a skip in node, a failure here).
	var vs []struct{ Name string }
	data, _ := os.ReadFile(vectors)
	if err := json.Unmarshal(data, &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if !bytes.Contains(out, []byte("ok ")) || !regexp.MustCompile(`(?m)^\s*ok \d+ - `+regexp.QuoteMeta(v.Name)+`$`).Match(out) {
			t.Errorf("vector %s did not pass in node:\n%s", v.Name, out)
		}
	}
	if m := regexp.MustCompile(`(?m)^# (pass|fail|skipped) (\d+)$`).FindAllSubmatch(out, -1); len(m) > 0 {
		t.Logf("node --test: %s", bytes.Join(regexp.MustCompile(`(?m)^# (pass|fail|skipped) \d+$`).FindAll(out, -1), []byte(", ")))
	}
	if regexp.MustCompile(`(?m)^# (fail|skipped) [1-9]`).Match(out) {
		t.Errorf("node --test failed or skipped tests:\n%s", out)
	}
}

// TestSemverMatchesGo: the JavaScript comparator orders every pair of a
// list of versions exactly as tree/version (SemVer precedence) does.
func TestSemverMatchesGo(t *testing.T) {
	node := nodeBinary(t)
	versions := []string{
		"0.0.0", "0.0.1", "1.0.0", "1.0.0-0", "1.0.0-1", "1.0.0-10", "1.0.0-9", "1.0.0-a", "1.0.0-A", "1.0.0-a.1", "1.0.0-a.b",
		"1.0.0-a-1", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
		"1.0.0-rc.1", "1.0.0+build", "1.0.0-rc.1+build.2", "2.0.0", "2.1.0", "2.1.1", "4.9.0", "4.10.0", "4.15.9",
		"4.15.10", "4.16.0-ec.0", "4.16.0-ec.1", "4.16.0-fc.0", "4.16.0-rc.0", "4.16.0-rc.10", "4.16.0-rc.9", "4.16.0",
		"4.16.0+amd64", "4.16.0+arm64", "4.16.1", "10.0.0", "1.0.0-0a", "1.0.0-00a", "1.0.0--", "1.0.0-x.7.z.92",
	}
	for _, v := range versions {
		version.MustParse(v)
	}
	in, _ := json.Marshal(versions)
	script := `import { compareSemver } from './web/graph.js';
const vs = JSON.parse(process.argv[1]);
console.log(JSON.stringify(vs.map((a) => vs.map((b) => compareSemver(a, b)))));`
	out, err := exec.Command(node, "--input-type=module", "-e", script, string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got [][]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %s: %v", out, err)
	}
	for i, a := range versions {
		for j, b := range versions {
			if want := version.Compare(version.MustParse(a), version.MustParse(b)); got[i][j] != want {
				t.Errorf("compareSemver(%s, %s) = %d, tree/version says %d", a, b, got[i][j], want)
			}
		}
	}
	t.Log(fmt.Sprintf("%d pairs agree", len(versions)*len(versions)))
}

// TestEncodeNameMatchesGo: the operators view names a catalog's files as
// catalog/views.EncodeName does (the page computes the names of bundles'
// next/ files), for names that need no escaping, every kind of escape,
// non-ASCII bytes and names hashed for their length.
func TestEncodeNameMatchesGo(t *testing.T) {
	node := nodeBinary(t)
	names := []string{
		"etcdoperator.v0.9.4", "Stable", "stable", "Fast_Track", "1.0.0+build.1", ".hidden", "a..b", "-x-", "a/b", "~!",
		"with space", "é", "日本", "tab\there", "quay-operator.v3.10.25", "x" + strings.Repeat("y", 199), strings.Repeat("z", 201),
		strings.Repeat("A", 100), strings.Repeat("A", 101), "demo-operator.v0.5.0-" + strings.Repeat("legacy", 32) + "+Build.Meta",
	}
	in, _ := json.Marshal(names)
	script := `import { encodeName } from './web/graph.js';
console.log(JSON.stringify(JSON.parse(process.argv[1]).map(encodeName)));`
	out, err := exec.Command(node, "--input-type=module", "-e", script, string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(names) {
		t.Fatalf("node printed %s: %v", out, err)
	}
	hashed := 0
	for i, name := range names {
		want := catviews.EncodeName(name)
		if got[i] != want {
			t.Errorf("encodeName(%q) = %q, catalog/views.EncodeName says %q", name, got[i], want)
		}
		if strings.HasPrefix(want, "!!") {
			hashed++
		}
	}
	if hashed < 3 {
		t.Errorf("only %d names hashed: the table does not cover long names", hashed)
	}

	// The metas files' names (catalog/metas.Encode): split, not hashed.
	names = append(names, "p.jsonl", ".jsonl", strings.Repeat("a", 1000)+".jsonl")
	in, _ = json.Marshal(names)
	script = `import { metasName } from './web/graph.js';
console.log(JSON.stringify(JSON.parse(process.argv[1]).map(metasName)));`
	out, err = exec.Command(node, "--input-type=module", "-e", script, string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(names) {
		t.Fatalf("node printed %s: %v", out, err)
	}
	for i, name := range names {
		if want := metas.Encode(name); got[i] != want {
			t.Errorf("metasName(%q) = %q, catalog/metas.Encode says %q", name, got[i], want)
		}
	}
}
