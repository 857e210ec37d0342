package views

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/schema"
)

// kindOf is the schema of a rendered file, "" for the blob files.
func kindOf(catalog, path string) schema.Kind {
	rel := strings.TrimPrefix(path, Dir(catalog))
	switch {
	case rel == SummaryFile:
		return schema.OperatorCatalog
	case strings.HasPrefix(rel, "next/"):
		return schema.OperatorNext
	case strings.HasPrefix(rel, "graph/") && strings.Count(rel, "/") == 1:
		return schema.OperatorPackageGraph
	case strings.HasPrefix(rel, "graph/"):
		return schema.OperatorChannelGraph
	}
	return ""
}

// treePath is index.json's pattern for file names.
var treePath = regexp.MustCompile(`^[A-Za-z0-9_=!+~-][A-Za-z0-9._=!+~-]*(?:/[A-Za-z0-9_=!+~-][A-Za-z0-9._=!+~-]*)*$`)

// TestRenderShared renders the shared real catalog: a summary, a graph
// per package and per channel, a next file per channel entry, each valid
// against its schema and the same bytes whatever the concurrency.
func TestRenderShared(t *testing.T) {
	cfg, info := loadShared(t)
	c, err := New("community", "dir:"+sharedCatalog, info, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	n := c.Counts()
	// The README's counts.
	if n.Packages != 33 || n.Channels != 78 || n.Bundles != 745 || n.Deprecations != 0 || n.Blobs != 856 || n.SkippedPackages != 0 {
		t.Errorf("counts = %+v, want 33 packages, 78 channels, 745 bundles, 856 blobs", n)
	}
	files := render(t, c, 1)
	// all.jsonl comes with its digest, the content digest (render checks
	// it against the bytes).
	known := 0
	if err := c.Render(context.Background(), 2, func(_ context.Context, _ int, f File) error {
		if f.SHA256 != "" {
			known++
			if f.Path != "operators/community/all.jsonl" || "sha256:"+f.SHA256 != c.ContentDigest() {
				t.Errorf("%s: SHA256 %s given (content digest %s)", f.Path, f.SHA256, c.ContentDigest())
			}
		}
		return nil
	}); err != nil || known != 1 {
		t.Errorf("all.jsonl's digest given with %d files (%v), want 1", known, err)
	}
	if again := render(t, c, 4); !maps.EqualFunc(files, again, bytes.Equal) {
		t.Error("rendering on 4 workers gave other files or bytes than on 1")
	}
	byKind := map[schema.Kind]int{}
	for path, data := range files {
		if !strings.HasPrefix(path, "operators/community/") || !treePath.MatchString(path) {
			t.Errorf("file %s: not a tree path under operators/community/", path)
		}
		kind := kindOf("community", path)
		byKind[kind]++
		if kind == "" {
			continue
		}
		if len(data) == 0 || data[len(data)-1] == '\n' || !json.Valid(data) || bytes.Contains(data, []byte("\n")) {
			t.Errorf("%s: not compact JSON", path)
		}
		ps, err := schema.Validate(kind, data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, p := range ps {
			t.Errorf("%s (%s): %s", path, kind, p)
		}
	}
	want := map[schema.Kind]int{schema.OperatorCatalog: 1, schema.OperatorPackageGraph: 33, schema.OperatorChannelGraph: 78, schema.OperatorNext: n.Entries}
	// all.jsonl is the blobs in load order, and its digest the content
	// digest.
	var all bytes.Buffer
	for _, m := range cfg.Metas {
		all.Write(m.Blob)
		all.WriteByte('\n')
	}
	if !bytes.Equal(files["operators/community/all.jsonl"], all.Bytes()) || byKind[""] < 1+33 {
		t.Errorf("all.jsonl is not the blobs in load order, or %d blob files", byKind[""])
	}
	for k, w := range want {
		if byKind[k] != w {
			t.Errorf("%d %s files, want %d", byKind[k], k, w)
		}
	}
	if n.Entries != 873 {
		t.Errorf("%d channel entries, want 873", n.Entries)
	}

	// A few answers, from the README's quirks: aws-neuron-operator's
	// downgrade edge (OLM v0 follows it, OLM v1 stays).
	var next model.InstalledView
	if err := json.Unmarshal(files["operators/community/"+NextPath("aws-neuron-operator", "Fast", "aws-neuron-operator.v0.1.2")], &next); err != nil {
		t.Fatal(err)
	}
	if next.OLMV0.Next == nil || next.OLMV0.Next.Name != "aws-neuron-operator.v0.0.5" {
		t.Errorf("OLM v0 from v0.1.2 on Fast: next = %+v, want the downgrade to v0.0.5", next.OLMV0.Next)
	}
	if next.OLMV1.Pick == nil || next.OLMV1.Pick.Name == "aws-neuron-operator.v0.0.5" {
		t.Errorf("OLM v1 from v0.1.2 on Fast: pick = %+v, want no downgrade", next.OLMV1.Pick)
	}
	if !strings.HasPrefix(next.OLMV0.Semantics, "olm-v0: ") || !strings.HasPrefix(next.OLMV1.Semantics, "olm-v1: ") {
		t.Errorf("semantics labels: %q, %q", next.OLMV0.Semantics, next.OLMV1.Semantics)
	}
	var sum Summary
	if err := json.Unmarshal(files["operators/community/catalog.json"], &sum); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sum.Packages, func(p PackageSummary) bool { return p.Name == "konflux-operator" })
	if i < 0 {
		t.Fatal("konflux-operator (in folder konflux/) is not in the summary")
	}
	for _, ch := range sum.Packages[i].Channels {
		if _, ok := files["operators/community/"+ch.Graph]; !ok || ch.Head == "" || ch.HeadVersion == "" {
			t.Errorf("channel %+v: no graph file or no head", ch)
		}
		if _, ok := files["operators/community/"+ch.Next+EncodeName(ch.Head)+".json"]; !ok {
			t.Errorf("channel %s: no next file for its head", ch.Name)
		}
	}
	if sum.ContentDigest != c.ContentDigest() || !strings.HasPrefix(sum.ContentDigest, "sha256:") {
		t.Errorf("content digest %q", sum.ContentDigest)
	}
}

// TestSameFromFile: the same catalog as one file gives the same files,
// catalog.json's source aside.
func TestSameFromFile(t *testing.T) {
	cfg, info := loadShared(t)
	dirCat, err := New("c", "dir:x", info, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, m := range cfg.Metas {
		all.Write(m.Blob)
		all.WriteByte('\n')
	}
	file := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(file, all.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := source.Parse("file:"+file, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fcfg, finfo, err := src.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fileCat, err := New("c", src.String(), finfo, fcfg, false)
	if err != nil {
		t.Fatal(err)
	}
	a, b := render(t, dirCat, 2), render(t, fileCat, 2)
	summary := "operators/c/catalog.json"
	a[summary], b[summary] = withoutSource(t, a[summary]), withoutSource(t, b[summary])
	if !maps.EqualFunc(a, b, bytes.Equal) {
		for p := range a {
			if !bytes.Equal(a[p], b[p]) {
				t.Errorf("%s differs", p)
			}
		}
		t.Fatal("the catalog as one file gives other files")
	}
}

// withoutSource is a summary with its source member removed.
func withoutSource(t *testing.T, data []byte) []byte {
	t.Helper()
	i := bytes.Index(data, []byte(`"source":{`))
	j := bytes.Index(data, []byte(`,"contentDigest":`))
	if i < 0 || j < i {
		t.Fatalf("summary without a source: %.200s", data)
	}
	return append(slices.Clone(data[:i]), data[j+1:]...)
}

// fixture is a catalog of package good (valid) and packages whose
// channels break one rule each.
func fixture(t *testing.T, extra string) *declcfg.DeclarativeConfig {
	t.Helper()
	var b strings.Builder
	pkg := func(name string, entries string, bundles ...string) {
		fmt.Fprintf(&b, `{"schema":"olm.package","name":%q,"defaultChannel":"stable"}`+"\n", name)
		fmt.Fprintf(&b, `{"schema":"olm.channel","name":"stable","package":%q,"entries":[%s]}`+"\n", name, entries)
		for _, v := range bundles {
			fmt.Fprintf(&b, `{"schema":"olm.bundle","name":"%s.v%s","package":%q,"image":"quay.io/x/%s:v%s","properties":[{"type":"olm.package","value":{"packageName":%q,"version":%q}}]}`+"\n",
				name, v, name, name, v, name, v)
		}
	}
	pkg("good", `{"name":"good.v1.0.0"},{"name":"good.v1.1.0","replaces":"good.v1.0.0"}`, "1.0.0", "1.1.0")
	pkg("twoheads", `{"name":"twoheads.v1.0.0"},{"name":"twoheads.v1.1.0"}`, "1.0.0", "1.1.0")
	pkg("cycle", `{"name":"cycle.v1.0.0","replaces":"cycle.v1.1.0"},{"name":"cycle.v1.1.0","replaces":"cycle.v1.0.0"},{"name":"cycle.v1.2.0","replaces":"cycle.v1.1.0"}`, "1.0.0", "1.1.0", "1.2.0")
	b.WriteString(extra)
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(b.String()), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestInvalidRefused(t *testing.T) {
	_, err := New("c", "file:catalog.json", source.Info{Kind: source.KindFile, Reference: "catalog.json"}, fixture(t, ""), false)
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want an InvalidError", err)
	}
	var rules []string
	for _, p := range ie.Problems {
		if p.Severity == model.Error {
			rules = append(rules, p.String())
		}
	}
	got := strings.Join(rules, "\n")
	for _, want := range []string{"catalog.json:6: error: ", "[F20]", "catalog.json:10: error: ", "[F21]"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if _, err := New("Bad", "x", source.Info{}, fixture(t, ""), true); err == nil || !strings.Contains(err.Error(), "DNS-1123") {
		t.Errorf("bad name: %v", err)
	}
}

// TestValidOnly: the packages with errors are left out, blobs and all,
// each listed with its errors; what is left is valid.
func TestValidOnly(t *testing.T) {
	extra := `{"schema":"olm.channel","name":"stable","package":"ghost","entries":[{"name":"ghost.v1"}]}` + "\n" +
		`{"schema":"example.other","name":"kept","package":""}` + "\n"
	c, err := New("c", "file:catalog.json", source.Info{Kind: source.KindFile, Reference: "catalog.json"}, fixture(t, extra), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.PackageNames(); !slices.Equal(got, []string{"good"}) {
		t.Errorf("published %q, want good only", got)
	}
	var skipped []string
	for _, s := range c.Skipped {
		skipped = append(skipped, s.Package)
		if s.Problems.Count(model.Error) == 0 {
			t.Errorf("%s skipped without an error", s.Package)
		}
	}
	if !slices.Equal(skipped, []string{"cycle", "ghost", "twoheads"}) {
		t.Errorf("skipped %q", skipped)
	}
	for _, m := range c.Config.Metas {
		if p := packageOf(&m); p != "good" && m.Schema != "example.other" {
			t.Errorf("blob %s %s of package %q published", m.Schema, m.Name, p)
		}
	}
	if len(c.Config.Metas) != 5 || !c.Model.Valid() {
		t.Errorf("%d blobs published (want good's 4 and the other schema's), valid %v", len(c.Config.Metas), c.Model.Valid())
	}
	files := render(t, c, 2)
	var sum Summary
	if err := json.Unmarshal(files["operators/c/catalog.json"], &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Counts.SkippedPackages != 3 || len(sum.Skipped) != 3 || sum.Skipped[0].Problems[0].File != "catalog.json" {
		t.Errorf("summary lists skipped %+v", sum.Skipped)
	}
	if ps, _ := schema.Validate(schema.OperatorCatalog, files["operators/c/catalog.json"]); len(ps) > 0 {
		t.Errorf("summary: %v", ps)
	}
	for p, data := range files {
		if strings.Contains(p, "cycle") || strings.Contains(p, "twoheads") || strings.Contains(p, "ghost") {
			t.Errorf("file %s of a skipped package", p)
		}
		if p != "operators/c/catalog.json" && (bytes.Contains(data, []byte(`"cycle`)) || bytes.Contains(data, []byte(`"twoheads`))) {
			t.Errorf("file %s has blobs of a skipped package", p)
		}
	}
}

// TestOddNames: names that need escaping make valid, distinct paths.
func TestOddNames(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"schema":"olm.package","name":"odd","defaultChannel":"Stable"}` + "\n")
	for _, ch := range []string{"Stable", "stable", ".hidden", "a/b", "x_y"} {
		fmt.Fprintf(&b, `{"schema":"olm.channel","name":%q,"package":"odd","entries":[{"name":"Odd.V1+b"}]}`+"\n", ch)
	}
	b.WriteString(`{"schema":"olm.bundle","name":"Odd.V1+b","package":"odd","image":"quay.io/x/odd:v1","properties":[{"type":"olm.package","value":{"packageName":"odd","version":"1.0.0"}}]}` + "\n")
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(b.String()), "odd.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New("odd", "file:odd.json", source.Info{Kind: source.KindFile, Reference: "catalog.json"}, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	files := render(t, c, 2)
	want := []string{
		"operators/odd/catalog.json", "operators/odd/graph/odd.json",
		"operators/odd/graph/odd/!stable.json", "operators/odd/graph/odd/stable.json", "operators/odd/graph/odd/~2ehidden.json",
		"operators/odd/graph/odd/a~2fb.json", "operators/odd/graph/odd/x~5fy.json",
		"operators/odd/next/odd/!stable/!odd.!v1_b.json", "operators/odd/next/odd/stable/!odd.!v1_b.json",
		"operators/odd/next/odd/~2ehidden/!odd.!v1_b.json", "operators/odd/next/odd/a~2fb/!odd.!v1_b.json",
		"operators/odd/next/odd/x~5fy/!odd.!v1_b.json",
	}
	var got []string
	for p := range files {
		if kindOf("odd", p) != "" {
			got = append(got, p)
		} else if !strings.HasSuffix(p, ".jsonl") {
			t.Errorf("%s: neither a view nor a blob file", p)
		}
	}
	if _, ok := files["operators/odd/all.jsonl"]; !ok {
		t.Error("no all.jsonl")
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range got {
		if !treePath.MatchString(p) {
			t.Errorf("%s: not a tree path", p)
		}
		if k := kindOf("odd", p); k != "" {
			if ps, err := schema.Validate(k, files[p]); err != nil || len(ps) > 0 {
				t.Errorf("%s: %v %v", p, err, ps)
			}
		}
	}
}
