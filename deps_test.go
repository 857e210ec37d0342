package upgraph_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layers says which packages of the module may not import which, directly
// or through any chain of the module's packages: the pipeline library
// (generator/..., and catalog/... for operator catalogs), the places a
// tree lives (tree/...) and the viewer's
// assets (viewer) sit below the serving layer (site/...) and the commands
// (cmd/...); internal/... sits below all of them. Paths are relative to
// the module; a rule covers the package of that path and those under it.
var layers = []struct {
	from      string
	forbidden []string
}{
	{"generator", []string{"site", "cmd"}},
	{"catalog", []string{"site", "cmd"}},
	{"tree", []string{"site", "cmd"}},
	{"viewer", []string{"site", "cmd"}},
	{"internal", []string{"generator", "catalog", "tree", "viewer", "site", "cmd"}},
}

// TestLayering: no package breaks a rule of layers through its own
// imports (go list's Imports, the build of the host's platform). A test
// may import what its package may not: tests of the library serve the
// trees they write with site.
func TestLayering(t *testing.T) {
	module, pkgs := listPackages(t)
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.ImportPath] = p.Imports
	}
	// The rules are not vacuous: each covers packages that exist.
	for _, l := range layers {
		if !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return under(module, p.ImportPath, l.from) }) {
			t.Errorf("no package under %s/%s: a stale rule", module, l.from)
		}
	}
	for _, l := range layers {
		var from []string
		for _, p := range pkgs {
			if under(module, p.ImportPath, l.from) {
				from = append(from, p.ImportPath)
			}
		}
		forbidden := func(pkg string) bool {
			return slices.ContainsFunc(l.forbidden, func(f string) bool { return under(module, pkg, f) })
		}
		for _, chain := range forbiddenChains(imports, from, forbidden) {
			for i, p := range chain {
				chain[i] = strings.TrimPrefix(p, module+"/")
			}
			t.Errorf("%s/... may import none of %s (under %s): %s", l.from, strings.Join(l.forbidden, ", "), module,
				strings.Join(chain, " -> "))
		}
	}
}

// TestForbiddenChains: the search finds an indirect import and names the
// shortest chain, once per package it starts from.
func TestForbiddenChains(t *testing.T) {
	imports := map[string][]string{
		"m/a":     {"m/b", "fmt"},
		"m/b":     {"m/c", "m/s/x"},
		"m/c":     {"m/s/x/y"},
		"m/d":     {"m/b"},
		"m/e":     {"m/c"},
		"m/s/x":   {"m/s"},
		"m/s/x/y": nil,
		"m/s":     nil,
		"m/ok":    {"fmt"},
		"fmt":     nil,
	}
	forbidden := func(p string) bool { return under("m", p, "s") }
	got := forbiddenChains(imports, []string{"m/a", "m/d", "m/e", "m/ok"}, forbidden)
	want := [][]string{
		{"m/a", "m/b", "m/s/x"},
		{"m/d", "m/b", "m/s/x"},
		{"m/e", "m/c", "m/s/x/y"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("forbiddenChains = %q, want %q", got, want)
	}
	if !under("m", "m/s", "s") || !under("m", "m/s/x", "s") || under("m", "m/sx", "s") || under("m", "m", "s") {
		t.Error("under matches the wrong paths")
	}
}

// under reports whether pkg is module/rel or a package under it.
func under(module, pkg, rel string) bool {
	p := module + "/" + rel
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// forbiddenChains returns, for each package of from that reaches a
// forbidden package through imports, the shortest such chain, from the
// package to the first forbidden one on the way.
func forbiddenChains(imports map[string][]string, from []string, forbidden func(string) bool) [][]string {
	var chains [][]string
	for _, start := range from {
		parent := map[string]string{start: ""}
		queue := []string{start}
		var hit string
		for len(queue) > 0 && hit == "" {
			p := queue[0]
			queue = queue[1:]
			for _, imp := range imports[p] {
				if _, seen := parent[imp]; seen {
					continue
				}
				parent[imp] = p
				if forbidden(imp) {
					hit = imp
					break
				}
				queue = append(queue, imp)
			}
		}
		if hit == "" {
			continue
		}
		var chain []string
		for p := hit; p != ""; p = parent[p] {
			chain = append(chain, p)
		}
		slices.Reverse(chain)
		chains = append(chains, chain)
	}
	return chains
}

type listedPackage struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// listPackages runs go list over every package of the module (an import
// cycle fails it) and returns the module's path and the packages.
func listPackages(t *testing.T) (string, []listedPackage) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	cmd := exec.Command(goBin, "list", "-json=ImportPath,Imports,Module", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 || pkgs[0].Module == nil {
		t.Fatalf("go list listed %d packages, the first outside a module", len(pkgs))
	}
	module := pkgs[0].Module.Path
	for _, want := range []string{"generator", "tree", "tree/bundle", "site", "cmd/upgraph", "internal/parallel"} {
		if !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return p.ImportPath == module+"/"+want }) {
			t.Fatalf("go list did not list %s/%s", module, want)
		}
	}
	return module, pkgs
}
