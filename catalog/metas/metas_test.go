package metas

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/metas/metastest"
)

const (
	fixture       = "testdata/fbc"
	sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"
)

func load(t testing.TB, dir string) *declcfg.DeclarativeConfig {
	t.Helper()
	dc, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// answer is what a static host answers from files: Resolve, the file or
// the empty answer when there is none.
func answer(files map[string][]byte, schema, pkg, name string) []byte {
	data, ok := files[Resolve(schema, pkg, name)]
	if !ok {
		data = files[EmptyFile]
	}
	return data
}

func byPath(fs []File) map[string][]byte {
	m := map[string][]byte{}
	for _, f := range fs {
		m[f.Path] = f.Data
	}
	return m
}

// values are the schemas, packages and names of dc, plus values it lacks.
func values(dc *declcfg.DeclarativeConfig) (schemas, packages, names []string) {
	seen := [3]map[string]bool{{}, {}, {}}
	add := func(k int, dst *[]string, v string) {
		if !seen[k][v] {
			seen[k][v] = true
			*dst = append(*dst, v)
		}
	}
	for _, m := range dc.Metas {
		add(0, &schemas, m.Schema)
		add(1, &packages, m.Package)
		add(2, &names, m.Name)
		// Values of one key used as another: a package's name as a package.
		add(1, &packages, m.Name)
	}
	for _, v := range []string{"", "nope", "OLM.PACKAGE", ".", "..", "a/b", strings.Repeat("x", 300)} {
		add(0, &schemas, v)
		add(1, &packages, v)
		add(2, &names, v)
	}
	return schemas, packages, names
}

// TestFilesMatchCatalogd: every file is what catalogd answers for its
// query, and every query of the catalog's values (and unknown ones) is
// answered from the files exactly as catalogd answers it.
func TestFilesMatchCatalogd(t *testing.T) {
	for _, dir := range []string{fixture, sharedCatalog} {
		t.Run(dir, func(t *testing.T) {
			dc := load(t, dir)
			oracle := metastest.NewOracle(dc)
			fs := Files(dc)
			files := byPath(fs)
			if !bytes.Equal(files[AllFile], oracle.All) {
				t.Fatal("all.jsonl is not catalogd's catalog file")
			}
			if !slices.IsSortedFunc(fs, func(a, b File) int { return cmp.Compare(a.Path, b.Path) }) || len(files) != len(fs) {
				t.Error("files not sorted or not unique")
			}
			schemas, packages, names := values(dc)
			// Every precomputed file answers its query.
			want := map[string][]byte{EmptyFile: {}}
			for _, s := range schemas[:len(schemas)-7] {
				want[SchemaFile(s)] = oracle.Get(s, "", "")
			}
			for _, m := range dc.Metas {
				if m.Package != "" {
					want[PackageFile(m.Package)] = oracle.Get("", m.Package, "")
					for _, s := range schemas[:len(schemas)-7] {
						want[PackageSchemaFile(m.Package, s)] = oracle.Get(s, m.Package, "")
					}
				}
				if m.Schema != "" && m.Name != "" {
					want[NameFile(m.Name)] = oracle.Get("", "", m.Name)
					want[SchemaNameFile(m.Schema, m.Name)] = oracle.Get(m.Schema, "", m.Name)
					if m.Package != "" {
						want[PackageNameFile(m.Package, m.Name)] = oracle.Get("", m.Package, m.Name)
						want[PackageSchemaNameFile(m.Package, m.Schema, m.Name)] = oracle.Get(m.Schema, m.Package, m.Name)
					}
				}
			}
			for p, data := range want {
				got, ok := files[p]
				if !ok {
					t.Errorf("no file %s", p)
				} else if !bytes.Equal(got, data) {
					t.Errorf("%s: %d bytes, catalogd answers %d", p, len(got), len(data))
				}
			}
			if len(files) != len(want)+1 {
				t.Errorf("%d files, want %d", len(files), len(want)+1)
			}
			// The bound docs/operators.md states: at most four name files
			// per blob.
			nameFiles := 0
			for p := range files {
				rest, inPackage := strings.CutPrefix(p, "metas/package/")
				if strings.HasPrefix(p, "metas/name/") || strings.HasPrefix(p, "metas/schema/") && strings.Count(p, "/") == 3 ||
					inPackage && strings.Count(rest, "/") > 1 {
					nameFiles++
				}
			}
			if nameFiles > 4*len(dc.Metas) {
				t.Errorf("%d name files for %d blobs", nameFiles, len(dc.Metas))
			}
			// Every combination, through Resolve.
			if dir == sharedCatalog { // a sample: enough, and quicker
				names, packages = sample(names, 30), sample(packages, 50)
			}
			n, nonEmpty := 0, 0
			for _, s := range schemas {
				for _, p := range packages {
					for _, name := range names {
						got, want := answer(files, s, p, name), oracle.Get(s, p, name)
						if !bytes.Equal(got, want) {
							t.Fatalf("schema=%q package=%q name=%q: got %d bytes, catalogd %d\n%.300s\n%.300s", s, p, name, len(got), len(want), got, want)
						}
						n++
						if len(want) > 0 {
							nonEmpty++
						}
					}
				}
			}
			// Blobs' own values, in every combination (every 24th blob of the
			// shared catalog).
			step := 1
			if dir == sharedCatalog {
				step = 24
			}
			for b := 0; b < len(dc.Metas); b += step {
				m := dc.Metas[b]
				for mask := 1; mask < 8; mask++ { // mask 0, no parameter, is the same for all
					q := [3]string{}
					for k, v := range []string{m.Schema, m.Package, m.Name} {
						if mask&(1<<k) != 0 {
							q[k] = v
						}
					}
					got, want := answer(files, q[0], q[1], q[2]), oracle.Get(q[0], q[1], q[2])
					if !bytes.Equal(got, want) {
						t.Fatalf("schema=%q package=%q name=%q: got %d bytes, catalogd %d", q[0], q[1], q[2], len(got), len(want))
					}
					n++
					if len(want) > 0 {
						nonEmpty++
					}
				}
			}
			t.Logf("%d files, %d queries compared (%d with blobs)", len(fs), n, nonEmpty)
		})
	}
}

// sample keeps n values spread over vs, and the last 7 (unknown ones).
func sample(vs []string, n int) []string {
	var out []string
	for i := 0; i < len(vs)-7; i += max(1, (len(vs)-7)/n) {
		out = append(out, vs[i])
	}
	return append(out, vs[len(vs)-7:]...)
}

// TestFilesFixture pins the fixture's layout: case-folded keys, the
// olm.package blob outside ?package=, interleaved packages, encoded names.
func TestFilesFixture(t *testing.T) {
	files := byPath(Files(load(t, fixture)))
	lines := func(p string) int { return bytes.Count(files[p], []byte("\n")) }
	for p, n := range map[string]int{
		AllFile:                                     20,
		"metas/schema/olm.package.jsonl":            3,
		"metas/schema/olm.channel.jsonl":            5,
		"metas/package/alpha.jsonl":                 8, // 2 channels, 2 bundles here, 1 channel in beta's file, 3 custom
		"metas/package/alpha/olm.package.jsonl":     0,
		"metas/package/beta/olm.channel.jsonl":      1, // keys Schema, Package, Name
		"metas/package/beta/olm.deprecations.jsonl": 1,
		"metas/package/!weird_!pkg.jsonl":           1,
		"metas/package/~2e..jsonl":                  1,
		"metas/package/~2e./example.custom.jsonl":   1,
		"metas/schema/olm.package/beta.jsonl":       1,
		"metas/name/beta~2ejsonl.jsonl":             1,
		"metas/package/" + strings.Repeat("a", 200) + "~~/" + strings.Repeat("a", 100) + "/name/long-package.jsonl": 1,
		"metas/package/alpha/schema/example.custom/" + strings.Repeat("!a", 100) + "~~/!a.jsonl":                    1,
		EmptyFile: 0,
	} {
		if _, ok := files[p]; !ok {
			t.Errorf("no %s", p)
		} else if got := lines(p); got != n {
			t.Errorf("%s: %d lines, want %d", p, got, n)
		}
	}
	if !bytes.Contains(files[AllFile], []byte(`"description":"Beta <script> \u2028 line"`)) ||
		!bytes.Contains(files[AllFile], []byte(`"value":12345678901234567000}`)) {
		t.Errorf("blobs not as catalogd stores them:\n%s", files[AllFile])
	}
	if got := string(files["metas/package/alpha/name/stable.jsonl"]); strings.Count(got, "\n") != 2 ||
		!strings.Contains(got, `"schema":"olm.channel"`) || !strings.Contains(got, `"schema":"example.custom"`) {
		t.Errorf("?package=alpha&name=stable:\n%s", got)
	}
}

func TestEncode(t *testing.T) {
	long := strings.Repeat("a", MaxEncoded+1)
	for in, want := range map[string]string{
		"olm.package": "olm.package", "my-op.v1.2.3": "my-op.v1.2.3", "Weird+Pkg": "!weird_!pkg",
		"a_b": "a~5fb", "a!b~c": "a~21b~7ec", ".": "~2e", "..": "~2e.", ".x.y": "~2ex.y", "a/b": "a~2fb",
		"café": "caf~c3~a9", " ": "~20", "p.jsonl": "p~2ejsonl", "P.jsonl": "!p~2ejsonl", ".jsonl": "~2ejsonl", "p.json": "p.json", strings.Repeat("a", MaxEncoded): strings.Repeat("a", MaxEncoded),
	} {
		if got := Encode(in); got != want {
			t.Errorf("Encode(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := Encode(long), strings.Repeat("a", MaxEncoded)+"~~/a"; got != want {
		t.Errorf("Encode(long) = %q, want %q", got, want)
	}
	// 101 upper-case letters: 202 bytes encoded, split inside "!a".
	if got, want := Encode(strings.Repeat("A", 101)), strings.Repeat("!a", 100)+"~~/!a"; got != want {
		t.Errorf("Encode(101 A) = %q, want %q", got, want)
	}
	if got, want := Encode(strings.Repeat("_", 100)), strings.Repeat("~5f", 66)+"~5~~/f"+strings.Repeat("~5f", 33); got != want {
		t.Errorf("Encode(100 _) = %q, want %q", got, want)
	}
	for _, n := range []int{MaxEncoded + 1, 2 * MaxEncoded, 2*MaxEncoded + 1, 1000} {
		for _, c := range []string{"a", "A", "_"} {
			in := strings.Repeat(c, n)
			enc := Encode(in)
			parts := strings.Split(enc, "/")
			joined := ""
			for i, p := range parts {
				last := i == len(parts)-1
				if len(p) > MaxEncoded+len(ContinueMark) || strings.HasSuffix(p, ContinueMark) == last {
					t.Fatalf("Encode(%d × %q): component %d %q", n, c, i, p)
				}
				joined += strings.TrimSuffix(p, ContinueMark)
			}
			if want := encodeWhole(in); joined != want {
				t.Errorf("Encode(%d × %q) joined is %q, want %q", n, c, joined, want)
			}
		}
	}
}

// encodeWhole is Encode's encoding before it is split.
func encodeWhole(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		e := Encode("a" + s[i:i+1])[1:]
		if i == 0 {
			e = Encode(s[:1])
		}
		b.WriteString(e)
	}
	return b.String()
}

// TestLongNamesNoCollision: the files of a catalog whose schemas,
// packages and names are long, and short ones spelled like the
// components of the long ones (a ".jsonl" ending included), never put a
// file where another file needs a directory, and every query resolves
// to its own file.
func TestLongNamesNoCollision(t *testing.T) {
	long := strings.Repeat("x", MaxEncoded-6) + ".jsonl" + strings.Repeat("Y", 150)
	values := []string{"s", long, long[:MaxEncoded-6], long[:MaxEncoded], long[:MaxEncoded] + "~", long[:MaxEncoded+10]}
	var dc declcfg.DeclarativeConfig
	for _, schema := range values {
		for _, pkg := range values {
			for _, name := range values {
				blob := fmt.Sprintf(`{"schema":%q,"package":%q,"name":%q}`, schema, pkg, name)
				dc.Metas = append(dc.Metas, declcfg.Meta{Schema: schema, Package: pkg, Name: name, Blob: []byte(blob)})
			}
		}
	}
	files := map[string]string{}
	for _, f := range Files(&dc) {
		files[f.Path] = string(f.Data)
	}
	for p := range files {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if _, ok := files[dir]; ok {
				t.Fatalf("%s is a file and the directory of %s", dir, p)
			}
		}
		for _, c := range strings.Split(p, "/") {
			if len(c) > MaxEncoded+len(".jsonl") {
				t.Errorf("%s: component of %d bytes", p, len(c))
			}
		}
	}
	for _, m := range dc.Metas {
		got := files[Resolve(m.Schema, m.Package, m.Name)]
		if got != string(m.Blob)+"\n" {
			t.Errorf("schema %d bytes, package %d, name %d: %d lines", len(m.Schema), len(m.Package), len(m.Name), strings.Count(got, "\n"))
		}
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		s, p, n string
		file    string
	}{
		{"", "", "", AllFile},
		{"olm.bundle", "", "", "metas/schema/olm.bundle.jsonl"},
		{"", "etcd", "", "metas/package/etcd.jsonl"},
		{"olm.bundle", "etcd", "", "metas/package/etcd/olm.bundle.jsonl"},
		{"olm.package", "", "etcd", "metas/schema/olm.package/etcd.jsonl"},
		{"olm.package", "etcd", "etcd", "metas/package/etcd/schema/olm.package/etcd.jsonl"},
		{"olm.channel", "", "Stable", "metas/schema/olm.channel/!stable.jsonl"},
		{"", "etcd", "stable", "metas/package/etcd/name/stable.jsonl"},
		{"olm.channel", "etcd", "stable", "metas/package/etcd/schema/olm.channel/stable.jsonl"},
		{"", "", "stable", "metas/name/stable.jsonl"},
		{"", "", ".x", "metas/name/~2ex.jsonl"},
	} {
		if file := Resolve(tc.s, tc.p, tc.n); file != tc.file {
			t.Errorf("Resolve(%q, %q, %q) = %s; want %s", tc.s, tc.p, tc.n, file, tc.file)
		}
	}
}

func TestBlobName(t *testing.T) {
	for line, want := range map[string]string{
		`{"name":"a"}`:              "a",
		`{"Name":"b","schema":"x"}`: "b",
		`{"NAME":"c"}` + "\n":       "c",
		`{"a":{"name":"no"},"b":["}",{"x":"\""}],"name":"d"}`: "d",
		`{"n\u0061me":"e\"\u00e9"}`:                           "e\"é",
		` { "nAmE" : "f" } `:                                  "f",
		`{"schema":"x"}`:                                      "",
		`{"names":"x","nam":"y","x":1.5e3,"y":true,"z":null}`: "",
	} {
		got, ok := BlobName([]byte(line))
		if got != want || ok != (want != "") {
			t.Errorf("BlobName(%s) = %q, %v; want %q", line, got, ok, want)
		}
	}
}

// TestFilesPackage: a metas/package/P… file whose blobs all belong to P
// says so (generate takes it over when P's blobs did not change); one
// holding an olm.package blob with package key P, which belongs to the
// package it names, and every file not of one package, do not.
func TestFilesPackage(t *testing.T) {
	blob := func(schema, pkg, name string) declcfg.Meta {
		return declcfg.Meta{Schema: schema, Package: pkg, Name: name, Blob: []byte(`{"name":"` + name + `","schema":"` + schema + `"}`)}
	}
	dc := &declcfg.DeclarativeConfig{Metas: []declcfg.Meta{
		blob("olm.package", "", "p"),
		blob("olm.channel", "p", "stable"),
		blob("olm.bundle", "p", "p.v1"),
		blob("olm.package", "", "q"),
		blob("olm.channel", "q", "stable"),
		blob("olm.package", "q", "odd"), // an olm.package blob with a package key: odd's, in q's files
	}}
	want := map[string]string{
		PackageFile("p"):                                    "p",
		PackageSchemaFile("p", "olm.bundle"):                "p",
		PackageSchemaFile("p", "olm.package"):               "p", // empty
		PackageNameFile("p", "stable"):                      "p",
		PackageSchemaNameFile("p", "olm.bundle", "p.v1"):    "p",
		PackageFile("q"):                                    "",
		PackageSchemaFile("q", "olm.package"):               "",
		PackageSchemaFile("q", "olm.channel"):               "q",
		PackageNameFile("q", "odd"):                         "",
		PackageSchemaNameFile("q", "olm.channel", "stable"): "q",
		AllFile:                              "",
		SchemaFile("olm.channel"):            "",
		NameFile("p.v1"):                     "",
		SchemaNameFile("olm.bundle", "p.v1"): "",
		EmptyFile:                            "",
	}
	got := map[string]string{}
	for _, f := range Files(dc) {
		got[f.Path] = f.Package
	}
	for path, pkg := range want {
		if g, ok := got[path]; !ok || g != pkg {
			t.Errorf("%s: package %q (file there: %v), want %q", path, g, ok, pkg)
		}
	}
}

// TestFilesSegmentLines: a file with segments (Cuts) lists its blobs
// (Lines), whose lines make its bytes, each cut at the start of one of
// them; a file without has none.
func TestFilesSegmentLines(t *testing.T) {
	var dc declcfg.DeclarativeConfig
	pad := strings.Repeat("x", 3000)
	for p := range 40 {
		pkg := fmt.Sprintf("p%d", p)
		dc.Metas = append(dc.Metas, declcfg.Meta{Schema: "olm.package", Name: pkg, Blob: []byte(`{"name":"` + pkg + `","schema":"olm.package"}`)})
		for b := range 4 {
			name := fmt.Sprintf("%s.v%d", pkg, b)
			dc.Metas = append(dc.Metas, declcfg.Meta{Schema: "olm.bundle", Package: pkg, Name: name,
				Blob: []byte(`{"name":"` + name + `","package":"` + pkg + `","pad":"` + pad + `","schema":"olm.bundle"}`)})
		}
	}
	segmented := 0
	for _, f := range Files(&dc) {
		if f.Cuts == nil {
			if f.Lines != nil {
				t.Errorf("%s: lines without segments", f.Path)
			}
			continue
		}
		segmented++
		var data []byte
		starts := map[int]bool{}
		for _, i := range f.Lines {
			starts[len(data)] = true
			data = append(append(data, dc.Metas[i].Blob...), '\n')
		}
		if !bytes.Equal(data, f.Data) {
			t.Errorf("%s: its lines are not its bytes", f.Path)
		}
		for _, c := range f.Cuts {
			if !starts[c] {
				t.Errorf("%s: cut %d not at a line's start", f.Path, c)
			}
		}
	}
	if segmented != 2 { // all.jsonl, metas/schema/olm.bundle.jsonl
		t.Errorf("%d files with segments, want 2", segmented)
	}
}
