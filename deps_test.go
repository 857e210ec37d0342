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

// layers is the layer order of the module, bottom first, stated once
// (README's package table and docs/architecture.md draw it): a package
// may import packages of the layers below its own and of its own folder,
// nothing else. Each entry of a layer is a top-level folder (a path
// relative to the module, covering the package of that path and those
// under it; "." is the module's own package, the embedded demo data).
// Folders sharing a layer sit side by side and may not import each
// other: the release pipeline (releases -> graphs) and the catalog
// pipeline (operator catalogs -> catalog files) are independent, and
// generator/ above them runs both into one tree.
var layers = [][]string{
	{"internal", "schema", "."}, // helpers, embedded schemas and demo data
	{"registry"},                // container registries: release scrapes, catalog images, OCI trees
	{"tree"},                    // the tree: format, store, every place it lives
	{"viewer"},                  // the static viewer written into every tree
	{"release", "catalog"},      // the two pipelines, side by side
	{"generator"},               // the batch job: both pipelines into one tree
	{"tools"},                   // readers of finished trees: diff, path, dot, plan, mirror-set, mirror
	{"site"},                    // serving a tree
	{"service"},                 // the update service: refresh, publish, metrics
	{"cmd"},                     // the CLI: flags, one call, print
}

// TestLayering: no package imports, directly or through any chain of the
// module's packages, a package of a higher layer or of another folder of
// its own layer (go list's Imports, the build of the host's platform);
// every package of the module belongs to a layer. A test may import what
// its package may not: tests of the library serve the trees they write
// with site.
func TestLayering(t *testing.T) {
	module, pkgs := listPackages(t)
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.ImportPath] = p.Imports
	}
	// The layers are not vacuous: each folder holds packages.
	for _, layer := range layers {
		for _, f := range layer {
			if !slices.ContainsFunc(pkgs, func(p listedPackage) bool {
				l, pf, ok := layerOf(module, p.ImportPath)
				return ok && layers[l][slices.Index(layers[l], pf)] == f
			}) {
				t.Errorf("no package under %s/%s: a stale layer", module, f)
			}
		}
	}
	for _, p := range pkgs {
		if _, _, ok := layerOf(module, p.ImportPath); !ok {
			t.Errorf("%s is in no layer: add its folder to layers", p.ImportPath)
		}
	}
	for level, layer := range layers {
		for _, folder := range layer {
			var from []string
			for _, p := range pkgs {
				if under(module, p.ImportPath, folder) {
					from = append(from, p.ImportPath)
				}
			}
			forbidden := func(pkg string) bool {
				l, f, ok := layerOf(module, pkg)
				return ok && (l > level || l == level && f != folder)
			}
			for _, chain := range forbiddenChains(imports, from, forbidden) {
				for i, p := range chain {
					chain[i] = strings.TrimPrefix(p, module+"/")
				}
				hit := chain[len(chain)-1]
				l, f, _ := layerOf(module, module+"/"+hit)
				why := "up"
				if l == level {
					why = "sideways"
				}
				t.Errorf("%s (layer %d) imports %s/ (layer %d), %s: %s", folder, level, f, l, why,
					strings.Join(chain, " -> "))
			}
		}
	}
}

// layerOf returns the layer and the folder of layers that package pkg
// belongs to; ok is false for a package outside the module or in no layer.
func layerOf(module, pkg string) (level int, folder string, ok bool) {
	for l, layer := range layers {
		for _, f := range layer {
			if f == "." && pkg == module || f != "." && under(module, pkg, f) {
				return l, f, true
			}
		}
	}
	return 0, "", false
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
	for _, want := range []string{"generator", "tree", "tree/bundle", "release/graph", "catalog/model", "tools/path", "site", "cmd/upgraph", "internal/parallel"} {
		if !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return p.ImportPath == module+"/"+want }) {
			t.Fatalf("go list did not list %s/%s", module, want)
		}
	}
	return module, pkgs
}
