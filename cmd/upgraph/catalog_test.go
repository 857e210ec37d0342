package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph/catalog/source"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree/manifest"
)

// catalogEnv pins generatedAt and keeps the catalog cache in the test.
func catalogEnv(t *testing.T) []string {
	return []string{"SOURCE_DATE_EPOCH=1700000000", "XDG_CACHE_HOME=" + t.TempDir()}
}

// bundleLine is an olm.bundle blob of package pkg at version v.
func bundleLine(pkg, v string) string {
	return fmt.Sprintf(`{"schema":"olm.bundle","name":"%s.v%s","package":%q,"image":"quay.io/example/%s-bundle:v%s","properties":[{"type":"olm.package","value":{"packageName":%q,"version":%q}}]}`,
		pkg, v, pkg, pkg, v, pkg, v)
}

// smallPackage is a package as a JSON stream, one blob a line: line 1
// the package, line 2 its channel (entries as given), lines 3–5 its
// bundles 1.0.0, 1.1.0 and 1.2.0.
func smallPackage(pkg, entries string) string {
	return strings.Join([]string{
		fmt.Sprintf(`{"schema":"olm.package","name":%q,"defaultChannel":"stable"}`, pkg),
		fmt.Sprintf(`{"schema":"olm.channel","name":"stable","package":%q,"entries":[%s]}`, pkg, entries),
		bundleLine(pkg, "1.0.0"), bundleLine(pkg, "1.1.0"), bundleLine(pkg, "1.2.0"),
	}, "\n") + "\n"
}

// goodEntries is a valid chain: 1.2.0 replaces 1.1.0 replaces 1.0.0,
// with a skipRange on the head.
func goodEntries(pkg string) string {
	return fmt.Sprintf(`{"name":"%[1]s.v1.0.0"},{"name":"%[1]s.v1.1.0","replaces":"%[1]s.v1.0.0"},{"name":"%[1]s.v1.2.0","replaces":"%[1]s.v1.1.0","skipRange":">=1.0.0 <1.2.0"}`, pkg)
}

// smallCatalog writes a valid catalog of the named packages (one folder
// each) under dir, plus the files given (relative path → content).
func smallCatalog(t *testing.T, dir string, pkgs []string, extra map[string]string) string {
	t.Helper()
	for _, p := range pkgs {
		write(t, filepath.Join(dir, p, "catalog.json"), smallPackage(p, goodEntries(p)))
	}
	for name, content := range extra {
		write(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	return dir
}

// readIndex reads and schema-checks a tree's index.json.
func readIndex(t *testing.T, tree string) *manifest.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tree, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := schema.Validate(schema.Index, data); err != nil || len(ps) > 0 {
		t.Errorf("%s/index.json: %v %v", tree, err, ps)
	}
	m, err := manifest.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGenerateCatalog: the shared real catalog alone, the demo releases
// alone, and both in one tree; twice the same bytes.
func TestGenerateCatalog(t *testing.T) {
	shared := needSharedCatalog(t)
	work := t.TempDir()
	env := catalogEnv(t)
	gen := func(out string, args ...string) string {
		t.Helper()
		stdout, stderr, code := run(t, work, env, append([]string{"generate", "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("generate %q: exit %d\n%s", args, code, stderr)
		}
		return stdout
	}
	stdout := gen("alone", "--catalog", "community="+shared)
	if !strings.Contains(stdout, "(catalog community: 33 packages, 78 channels, 745 bundles) to alone") {
		t.Errorf("stdout = %q", stdout)
	}
	gen("again", "--catalog", "community="+shared)
	alone, again := treeDigest(t, filepath.Join(work, "alone")), treeDigest(t, filepath.Join(work, "again"))
	if !maps.Equal(alone, again) {
		t.Errorf("two generations of the same catalog differ: %s", diffDigests(again, alone))
	}
	m := readIndex(t, filepath.Join(work, "alone"))
	if len(m.Catalogs) != 1 || m.Catalogs[0].Counts.Packages != 33 || m.Catalogs[0].Counts.Bundles != 745 || len(m.Graphs) != 0 {
		t.Errorf("index.json: catalogs %+v, %d graphs", m.Catalogs, len(m.Graphs))
	}
	for name := range alone {
		// A gzip copy (FILE.gz) is its file's bytes compressed: the
		// generator's TestRenderCatalogCopies checks that.
		if k := catalogFileKind(name); k != "" && !strings.HasSuffix(name, ".gz") {
			checkSchema(t, filepath.Join(work, "alone", name), k)
		}
	}

	gen("releases", "--demo")
	gen("both", "--demo", "--catalog", "community="+shared)
	releases, both := treeDigest(t, filepath.Join(work, "releases")), treeDigest(t, filepath.Join(work, "both"))
	for name, sum := range releases {
		if strings.HasPrefix(name, "graph/") || strings.HasPrefix(name, "signatures/") {
			if both[name] != sum {
				t.Errorf("%s differs with a catalog beside the releases", name)
			}
		}
	}
	for name, sum := range alone {
		if strings.HasPrefix(name, "operators/") && both[name] != sum {
			t.Errorf("%s differs with releases beside the catalog", name)
		}
		if strings.HasPrefix(name, "operators/") || strings.HasPrefix(name, "schema/operator-") {
			if _, ok := releases[name]; ok {
				t.Errorf("releases alone have %s", name)
			}
		}
	}
	mb := readIndex(t, filepath.Join(work, "both"))
	if len(mb.Catalogs) != 1 || len(mb.Graphs) == 0 || mb.Inputs.Releases.Kind != "metadata" {
		t.Errorf("both: %d catalogs, %d graphs, releases %+v", len(mb.Catalogs), len(mb.Graphs), mb.Inputs.Releases)
	}
	if _, stderr, code := run(t, work, env, "generate", "--out", "none"); code != 1 || !strings.Contains(stderr, "--catalog NAME=SOURCE") {
		t.Errorf("no input: exit %d, %s", code, stderr)
	}
}

func catalogFileKind(rel string) schema.Kind {
	parts := strings.Split(rel, "/")
	switch {
	case len(parts) < 3 || parts[0] != "operators":
		return ""
	case len(parts) == 3 && parts[2] == "catalog.json":
		return schema.OperatorCatalog
	case parts[2] == "next":
		return schema.OperatorNext
	case parts[2] == "graph" && len(parts) == 4:
		return schema.OperatorPackageGraph
	case parts[2] == "graph":
		return schema.OperatorChannelGraph
	}
	return ""
}

func checkSchema(t *testing.T, file string, kind schema.Kind) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := schema.Validate(kind, data); err != nil || len(ps) > 0 {
		t.Errorf("%s (%s): %v %v", file, kind, err, ps)
	}
}

// catalogLayer puts the files of the FBC directory local under /configs
// in an uncompressed layer.
func catalogLayer(t *testing.T, local string) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: "configs/", Mode: 0o755, Typeflag: tar.TypeDir})
	err := filepath.WalkDir(local, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == local {
			return err
		}
		rel, _ := filepath.Rel(local, p)
		name := "configs/" + filepath.ToSlash(rel)
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Name: name + "/", Mode: 0o755, Typeflag: tar.TypeDir})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tw.Close()
	return static.NewLayer(buf.Bytes(), types.DockerUncompressedLayer)
}

// catalogImage is a catalog image of the FBC directory local, labelled
// as opm labels them.
func catalogImage(t *testing.T, local string) v1.Image {
	t.Helper()
	img := rt.Image(t, "amd64", false, catalogLayer(t, local))
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg := cf.Config
	cfg.Labels = map[string]string{source.ConfigsLabel: "/configs"}
	if img, err = mutate.Config(img, cfg); err != nil {
		t.Fatal(err)
	}
	return img
}

// yamlStream concatenates the YAML files of an FBC directory, in the
// order the loader reads them, as one file of YAML documents.
func yamlStream(t *testing.T, dir, file string) {
	t.Helper()
	var out bytes.Buffer
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if out.Len() > 0 {
			out.WriteString("\n---\n")
		}
		out.Write(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, file, out.String())
}

// TestGenerateCatalogSources: the shared catalog from its directory, as a
// single YAML file and as an image in a real registry (by tag, from the
// cache, by digest) gives the same files, catalog.json's source and
// index.json aside.
func TestGenerateCatalogSources(t *testing.T) {
	shared := needSharedCatalog(t)
	work := t.TempDir()
	env := catalogEnv(t)
	yamlStream(t, shared, filepath.Join(work, "catalog.yaml"))
	reg := rt.Start(t)
	ref := reg.Host + "/catalogs/community:v4.21"
	digest := rt.Push(t, ref, catalogImage(t, shared))
	cache := filepath.Join(work, "cache")

	sources := []struct{ out, spec string }{
		{"dir", "dir:" + shared},
		{"file", "file:catalog.yaml"},
		{"image", "image:" + ref},
		{"cached", "image:" + ref},
		{"digest", reg.Host + "/catalogs/community@" + digest},
	}
	trees := map[string]map[string]string{}
	for _, s := range sources {
		_, stderr, code := run(t, work, env, "generate", "--catalog", "community="+s.spec, "--cache", cache, "--plain-http", "--out", s.out)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", s.spec, code, stderr)
		}
		trees[s.out] = treeDigest(t, filepath.Join(work, s.out))
	}
	summaries := map[string]map[string]any{}
	for _, s := range sources {
		var sum map[string]any
		if err := json.Unmarshal(mustRead(t, filepath.Join(work, s.out, "operators/community/catalog.json")), &sum); err != nil {
			t.Fatal(err)
		}
		summaries[s.out] = sum
		got := trees[s.out]
		for name, want := range trees["dir"] {
			if name == "index.json" || name == "operators/community/catalog.json" || name == "operators/community/catalog.json.gz" {
				continue
			}
			if got[name] != want {
				t.Errorf("%s: %s differs from the directory's", s.spec, name)
			}
		}
		if len(got) != len(trees["dir"]) {
			t.Errorf("%s: %d files, the directory gives %d", s.spec, len(got), len(trees["dir"]))
		}
		src := sum["source"].(map[string]any)
		delete(sum, "source")
		if !maps.EqualFunc(sum, summaries["dir"], func(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
			t.Errorf("%s: catalog.json differs beyond its source", s.spec)
		}
		switch s.out {
		case "image", "cached", "digest":
			if src["digest"] != digest || src["platform"] != "linux/amd64" || src["configsDir"] != "/configs" ||
				src["resolved"] != reg.Host+"/catalogs/community@"+digest {
				t.Errorf("%s: source %v", s.spec, src)
			}
			m := readIndex(t, filepath.Join(work, s.out))
			if c := m.Catalogs[0]; c.Digest != digest || c.Kind != "image" || c.Platform != "linux/amd64" {
				t.Errorf("%s: index.json catalog %+v", s.spec, c)
			}
		}
	}
	// The tag read from the cache is the tag read from the registry, to the
	// byte: the cache leaves no trace in the tree.
	if !maps.Equal(trees["image"], trees["cached"]) {
		t.Errorf("cached image: %s", diffDigests(trees["cached"], trees["image"]))
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "catalogs", "v1", "sha256", "*"))
	if len(entries) != 1 || filepath.Base(entries[0]) != strings.TrimPrefix(digest, "sha256:") {
		t.Errorf("catalog cache holds %q, want the image's digest", entries)
	}
}

// TestGenerateCatalogBadInput: each kind of broken catalog fails with
// every error named file:line: severity: message [rule], exit status 1,
// and leaves the published tree as it was.
func TestGenerateCatalogBadInput(t *testing.T) {
	work := t.TempDir()
	env := catalogEnv(t)
	good := smallCatalog(t, filepath.Join(work, "good"), []string{"alpha", "beta"}, nil)
	tree := filepath.Join(work, "tree")
	if _, stderr, code := run(t, work, env, "generate", "--catalog", "c="+good, "--out", tree); code != 0 {
		t.Fatal(stderr)
	}
	before := treeDigest(t, tree)
	e := func(s string) string { return strings.ReplaceAll(s, "P", "beta") }
	for _, tc := range []struct {
		name  string
		files map[string]string // beta/catalog.json replaced, or other files added
		want  []string
	}{
		{"malformed JSON", map[string]string{"beta/catalog.json": strings.Replace(smallPackage("beta", goodEntries("beta")), `"name":"beta.v1.1.0","package"`, `"name":"beta.v1.1.0",,"package"`, 1)},
			[]string{"beta/catalog.json:4: error: ", "[F0]"}},
		{"duplicate package", map[string]string{"gamma/catalog.json": "\n" + `{"schema":"olm.package","name":"alpha","defaultChannel":"stable"}` + "\n"},
			[]string{"gamma/catalog.json:2: error: ", "[F2]"}},
		{"two heads", map[string]string{"beta/catalog.json": smallPackage("beta", e(`{"name":"P.v1.0.0"},{"name":"P.v1.1.0","replaces":"P.v1.0.0"},{"name":"P.v1.2.0"}`))},
			[]string{"beta/catalog.json:2: error: ", "multiple channel heads", "[F20]"}},
		{"cycle", map[string]string{"beta/catalog.json": smallPackage("beta", e(`{"name":"P.v1.0.0","replaces":"P.v1.1.0"},{"name":"P.v1.1.0","replaces":"P.v1.0.0"},{"name":"P.v1.2.0","replaces":"P.v1.1.0"}`))},
			[]string{"beta/catalog.json:2: error: ", "cycle", "[F21]"}},
		{"stranded bundle", map[string]string{"beta/catalog.json": smallPackage("beta", e(`{"name":"P.v1.0.0"},{"name":"P.v1.1.0","replaces":"P.v1.0.0"},{"name":"P.v1.2.0","replaces":"P.v1.1.0","skips":["P.v1.1.0"]}`))},
			[]string{"beta/catalog.json:", "beta.v1.0.0", "[F22]"}},
		{"bad skipRange", map[string]string{"beta/catalog.json": smallPackage("beta", e(`{"name":"P.v1.0.0"},{"name":"P.v1.1.0","replaces":"P.v1.0.0"},{"name":"P.v1.2.0","replaces":"P.v1.1.0","skipRange":"not a range"}`))},
			[]string{"beta/catalog.json:2: error: ", "not a range", "[F19]"}},
		{"bundle without olm.package", map[string]string{"beta/catalog.json": strings.Replace(smallPackage("beta", goodEntries("beta")),
			`"properties":[{"type":"olm.package","value":{"packageName":"beta","version":"1.1.0"}}]`, `"properties":[]`, 1)},
			[]string{"beta/catalog.json:4: error: ", "[F11]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := smallCatalog(t, t.TempDir(), []string{"alpha", "beta"}, tc.files)
			_, stderr, code := run(t, work, env, "generate", "--catalog", "c="+bad, "--out", tree)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "beta/", filepath.Join(bad, "beta")+"/"); strings.HasPrefix(w, "gamma/") {
					w = filepath.Join(bad, w)
				}
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if !strings.Contains(stderr, "nothing was written") {
				t.Errorf("stderr does not say the tree is unchanged:\n%s", stderr)
			}
			if got := treeDigest(t, tree); !maps.Equal(got, before) {
				t.Errorf("the published tree changed: %s", diffDigests(got, before))
			}
			// validate says the same, with exit status 1.
			vout, _, verr := runValidateApp("--catalog", bad)
			if verr == nil {
				t.Errorf("validate accepted it:\n%s", vout)
			}
			for _, w := range tc.want {
				if strings.HasPrefix(w, "gamma/") || strings.HasPrefix(w, "beta/") {
					continue // paths checked above
				}
				if !strings.Contains(vout, w) {
					t.Errorf("validate's output lacks %q:\n%s", w, vout)
				}
			}
		})
	}
}

// TestGenerateCatalogValidOnly: --catalog-valid-only publishes the
// packages without errors and lists the others with their errors.
func TestGenerateCatalogValidOnly(t *testing.T) {
	work := t.TempDir()
	env := catalogEnv(t)
	bad := smallCatalog(t, filepath.Join(work, "bad"), []string{"alpha", "beta", "delta"}, map[string]string{
		"beta/catalog.json": smallPackage("beta", `{"name":"beta.v1.0.0"},{"name":"beta.v1.1.0"},{"name":"beta.v1.2.0"}`),
	})
	stdout, stderr, code := run(t, work, env, "generate", "--catalog", "c="+bad, "--catalog-valid-only", "--out", "tree")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "catalog c (dir:"+bad+"): package beta left out (1 error):") ||
		!strings.Contains(stderr, filepath.Join(bad, "beta", "catalog.json")+":2: error: ") || !strings.Contains(stderr, "[F20]") {
		t.Errorf("stderr does not list beta with its error:\n%s", stderr)
	}
	if !strings.Contains(stdout, "catalog c: 2 packages, 2 channels, 6 bundles, 1 package left out") {
		t.Errorf("stdout = %q", stdout)
	}
	m := readIndex(t, filepath.Join(work, "tree"))
	if c := m.Catalogs[0]; !slices.Equal(c.Packages, []string{"alpha", "delta"}) || c.Counts.SkippedPackages != 1 {
		t.Errorf("index.json catalog %+v", c)
	}
	all := string(mustRead(t, filepath.Join(work, "tree/operators/c/all.jsonl")))
	if strings.Contains(all, `"beta`) || !strings.Contains(all, `"alpha"`) {
		t.Errorf("all.jsonl:\n%s", all)
	}
	checkSchema(t, filepath.Join(work, "tree/operators/c/catalog.json"), schema.OperatorCatalog)
	var sum struct {
		Skipped []struct {
			Package  string
			Problems []struct{ File, Rule string }
		}
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(work, "tree/operators/c/catalog.json")), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Skipped) != 1 || sum.Skipped[0].Package != "beta" || sum.Skipped[0].Problems[0].File != "beta/catalog.json" {
		t.Errorf("catalog.json skipped = %+v (files relative to the catalog's root)", sum.Skipped)
	}
}

// TestGenerateCatalogValidOnlyRefused: with --catalog-valid-only, a
// catalog failing on a file (not a package) is refused without
// suggesting the flag again, and a generation left with no valid package
// is refused; neither leaves anything beside --out.
func TestGenerateCatalogValidOnlyRefused(t *testing.T) {
	work := t.TempDir()
	env := catalogEnv(t)
	broken := smallCatalog(t, filepath.Join(work, "broken"), []string{"alpha"}, map[string]string{"zz.json": `{"schema":"olm.package",`})
	allBad := smallCatalog(t, filepath.Join(work, "allbad"), nil, map[string]string{
		"beta/catalog.json": smallPackage("beta", `{"name":"beta.v1.0.0"},{"name":"beta.v1.1.0"},{"name":"beta.v1.2.0"}`),
	})
	for _, src := range []string{broken, allBad} {
		_, stderr, code := run(t, work, env, "generate", "--catalog", "c="+src, "--catalog-valid-only", "--out", "out")
		if code == 0 {
			t.Errorf("%s: exit 0", src)
		}
		if strings.Contains(stderr, "--catalog-valid-only publishes") {
			t.Errorf("%s: suggests the flag it was given:\n%s", src, stderr)
		}
		if left, _ := filepath.Glob(filepath.Join(work, ".out*")); len(left) > 0 {
			t.Errorf("%s: left %v beside --out", src, left)
		}
	}
}

// TestGenerateCatalogShrinkGuard: dropping a catalog, or most of its
// packages, is refused without --force.
func TestGenerateCatalogShrinkGuard(t *testing.T) {
	work := t.TempDir()
	env := catalogEnv(t)
	five := []string{"p1", "p2", "p3", "p4", "p5"}
	full := smallCatalog(t, filepath.Join(work, "full"), five, nil)
	small := smallCatalog(t, filepath.Join(work, "small"), five[:2], nil)
	empty := filepath.Join(work, "empty")
	os.Mkdir(empty, 0o755)
	tree := filepath.Join(work, "tree")
	if _, stderr, code := run(t, work, env, "generate", "--demo", "--catalog", "c="+full, "--out", tree); code != 0 {
		t.Fatal(stderr)
	}
	before := treeDigest(t, tree)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"catalog dropped", []string{"--demo"}, []string{"catalogs dropped: c (5 packages, 15 bundles)", "--force"}},
		{"most packages dropped", []string{"--demo", "--catalog", "c=" + small},
			[]string{"catalog c: packages 5 → 2, 3 dropped (60%): p3, p4, p5", "catalog c: bundles 15 → 6 (60% fewer)", "unchanged"}},
		{"renamed", []string{"--demo", "--catalog", "d=" + full}, []string{"catalogs dropped: c"}},
		{"releases dropped", []string{"--catalog", "c=" + full}, []string{"releases", "channels 6 → 0"}},
		{"empty catalog", []string{"--demo", "--catalog", "c=" + full, "--catalog", "e=" + empty}, []string{"no package in catalog e", "--allow-empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, work, env, append([]string{"generate", "--out", tree}, tc.args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if got := treeDigest(t, tree); !maps.Equal(got, before) {
				t.Errorf("the tree changed: %s", diffDigests(got, before))
			}
		})
	}
	if _, stderr, code := run(t, work, env, "generate", "--demo", "--catalog", "c="+small, "--force", "--out", tree); code != 0 {
		t.Fatalf("--force: exit %d\n%s", code, stderr)
	}
	if m := readIndex(t, tree); m.Catalogs[0].Counts.Packages != 2 {
		t.Errorf("--force: %+v", m.Catalogs)
	}
}

// TestRepeatableFlagsTakeValuesWhole: a NAME=SOURCE value holding a
// comma is one catalog (a directory named with a comma), while the flags
// documented as comma-separated still split.
func TestRepeatableFlagsTakeValuesWhole(t *testing.T) {
	work := t.TempDir()
	fbc := smallCatalog(t, filepath.Join(work, "co,mma"), []string{"alpha"}, nil)
	if _, stderr, code := run(t, work, nil, "generate", "--catalog", "x=dir:"+fbc, "--out", "tree"); code != 0 {
		t.Fatalf("generate --catalog x=dir:%s: exit %d\n%s", fbc, code, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "tree", "operators", "x", "all.jsonl")); err != nil {
		t.Error(err)
	}
	if _, stderr, code := run(t, work, nil, "mirror", "--from", "tree", "--out", "m", "--catalog", "x,nope"); code == 0 || !strings.Contains(stderr, "--catalog nope: the tree has no such catalog") {
		t.Errorf("mirror --catalog x,nope: exit %d, %s (want the comma-separated list read, nope refused)", code, stderr)
	}
}
