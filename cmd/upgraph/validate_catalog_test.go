package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// problemLine is validate's text form: file:line: severity: message [rule].
var problemLine = regexp.MustCompile(`^[^:]+:[0-9]+: (error|warning): .+ \[[A-Za-z0-9-]+\]$`)

// TestValidateCatalog: validate --catalog alone and beside --graph-data,
// in text and JSON.
func TestValidateCatalog(t *testing.T) {
	shared := needSharedCatalog(t)
	stdout, _, err := runValidateApp("--catalog", shared)
	if err != nil {
		t.Fatalf("the shared catalog (opm validate clean) fails: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) < 10 {
		t.Fatalf("%d lines of warnings, want the catalog's warnings:\n%s", len(lines), stdout)
	}
	for _, l := range lines {
		if !problemLine.MatchString(l) || !strings.HasPrefix(l, shared+"/") || !strings.Contains(l, ": warning: ") {
			t.Errorf("line %q: not file:line: warning: message [rule] with the file under %s", l, shared)
		}
	}
	if !strings.Contains(stdout, filepath.Join(shared, "slurm-operator", "catalog.yaml")+":") || !strings.Contains(stdout, "[L-downgrade-edge]") {
		t.Error("the README's downgrade edge (slurm-operator) is not reported")
	}

	out, _, err := runValidateApp("--catalog", shared, "--format", "json")
	var ps []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &ps) != nil || len(ps) != len(lines) {
		t.Fatalf("json: %v, %d problems, text has %d", err, len(ps), len(lines))
	}
	for _, p := range ps {
		if p["package"] == nil || p["rule"] == nil || p["line"].(float64) < 1 {
			t.Errorf("json problem %v: no package, rule or line", p)
			break
		}
	}

	// A file that does not load is one problem at its line [F0].
	bad := writeTree(t, map[string]string{"a/catalog.json": smallPackage("a", goodEntries("a")) + "{\"schema\":,\"name\":\"x\"}\n"})
	out, _, err = runValidateApp("--catalog", "dir:"+bad)
	if err == nil || !strings.HasPrefix(out, filepath.Join(bad, "a", "catalog.json")+":6: error: ") || !strings.Contains(out, "[F0]") {
		t.Errorf("malformed JSON: err %v, output %q", err, out)
	}

	// Beside graph-data: one list, both verdicts.
	gd := writeTree(t, validateFixture)
	two := smallCatalog(t, t.TempDir(), []string{"alpha"}, map[string]string{
		"beta/catalog.json": smallPackage("beta", `{"name":"beta.v1.0.0"},{"name":"beta.v1.1.0"},{"name":"beta.v1.2.0"}`)})
	out, _, err = runValidateApp("--graph-data", gd, "--catalog", two, "--format", "json")
	ps = nil
	if jerr := json.Unmarshal([]byte(out), &ps); jerr != nil {
		t.Fatal(jerr)
	}
	rules := map[string]bool{}
	for _, p := range ps {
		rules[p["rule"].(string)] = true
	}
	if !rules["B6"] || !rules["L-version-order"] || !rules["F20"] {
		t.Errorf("rules %v, want graph-data's B6 and L-version-order and the catalog's F20", rules)
	}
	if err == nil || !strings.Contains(err.Error(), "graph-data "+gd+": 1 error, 1 warning") || !strings.Contains(err.Error(), "catalog "+two+": 1 error, 0 warnings") {
		t.Errorf("err = %v, want both verdicts", err)
	}
	// Graph-data alone is unchanged; neither is an error.
	if out, _, _ := runValidateApp("--graph-data", gd); strings.Contains(out, "[F") {
		t.Errorf("graph-data alone reports catalog rules:\n%s", out)
	}
	if _, _, err := runValidateApp("--format", "json"); err == nil || !strings.Contains(err.Error(), `Required flag "graph-data" not set`) || !strings.Contains(err.Error(), "--catalog") {
		t.Errorf("neither flag: %v", err)
	}
	if _, _, err := runValidateApp("--catalog", "missing-dir"); err == nil || !strings.Contains(err.Error(), "--catalog") {
		t.Errorf("missing catalog: %v", err)
	}
}

// TestValidateCatalogEmpty: an empty directory or file is no catalog to
// publish (generate refuses it), and validate says so and fails.
func TestValidateCatalogEmpty(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "d")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{empty, file} {
		_, _, err := runValidateApp("--catalog", src)
		if err == nil || !strings.Contains(err.Error(), "catalog "+src+": no blob at all (an empty directory or file)") {
			t.Errorf("validate --catalog %s: %v", src, err)
		}
	}
}

// TestValidateCatalogMaxOCPNumber: YAML `value: 4.20` for
// olm.maxOpenShiftVersion is the number 4.2 (as OLM reads it): validate
// warns the author at the bundle blob, file:line.
func TestValidateCatalogMaxOCPNumber(t *testing.T) {
	dir := t.TempDir()
	yaml := `schema: olm.package
name: p
defaultChannel: stable
---
schema: olm.channel
package: p
name: stable
entries:
  - name: p.v1.0.0
---
schema: olm.bundle
package: p
name: p.v1.0.0
image: quay.io/example/p@sha256:` + strings.Repeat("ab", 32) + `
properties:
  - type: olm.package
    value: {packageName: p, version: 1.0.0}
  - type: olm.maxOpenShiftVersion
    value: 4.20
`
	file := filepath.Join(dir, "p", "catalog.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runValidateApp("--catalog", dir)
	if err != nil {
		t.Fatalf("a warning failed validate: %v", err)
	}
	want := file + `:11: warning: bundle "p.v1.0.0": olm.maxOpenShiftVersion is the number 4.2, not a string: OLM reads 4.2`
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, "[L-max-ocp-number]") {
		t.Errorf("stdout:\n%s\nwant a line starting %s", stdout, want)
	}
}
