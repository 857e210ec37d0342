package declcfg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// blob is what a test expects of one Meta: "file:line schema/package/name"
// and, if set, its exact bytes.
type blob struct {
	at   string
	json string
}

func files(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1])}
	}
	return m
}

func describe(m Meta) string {
	return fmt.Sprintf("%s:%d %s/%s/%s", m.Pos.File, m.Pos.Line, m.Schema, m.Package, m.Name)
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name  string
		fsys  fstest.MapFS
		want  []blob
		err   string // substring of the error, "file:line: ..." first
		check func(t *testing.T, cfg *DeclarativeConfig)
	}{
		{
			name: "JSON stream",
			fsys: files("p/catalog.json", `{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{
    "schema": "olm.channel",
    "package": "p",
    "name": "stable",
    "entries": [{"name": "p.v1.0.0"}]
}{"schema":"olm.bundle","package":"p","name":"p.v1.0.0","image":"quay.io/p/b@sha256:1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
`),
			want: []blob{
				{"p/catalog.json:1 olm.package//p", `{"defaultChannel":"stable","name":"p","schema":"olm.package"}`},
				{"p/catalog.json:2 olm.channel/p/stable", `{"entries":[{"name":"p.v1.0.0"}],"name":"stable","package":"p","schema":"olm.channel"}`},
				{"p/catalog.json:7 olm.bundle/p/p.v1.0.0", ""},
			},
			check: func(t *testing.T, cfg *DeclarativeConfig) {
				if len(cfg.Packages) != 1 || len(cfg.Channels) != 1 || len(cfg.Bundles) != 1 || len(cfg.Others) != 0 {
					t.Fatalf("decoded %d packages, %d channels, %d bundles, %d others", len(cfg.Packages), len(cfg.Channels), len(cfg.Bundles), len(cfg.Others))
				}
				if e := cfg.Channels[0].Entries; len(e) != 1 || e[0].Name != "p.v1.0.0" || cfg.Channels[0].Pos.Line != 2 {
					t.Errorf("channel = %+v", cfg.Channels[0])
				}
				if b := cfg.Bundles[0]; b.Image != "quay.io/p/b@sha256:1" || string(b.Properties[0].Value) != `{"packageName":"p","version":"1.0.0"}` {
					t.Errorf("bundle = %+v", b)
				}
			},
		},
		{
			name: "YAML documents",
			fsys: files("catalog.yaml", `---
# the package
schema: olm.package
name: p
defaultChannel: stable
description: "<b>&amp;</b> \u2028"
---
schema: olm.channel
package: p
name: stable
entries:
  - name: p.v1.0.0
  - name: p.v1.1.0
    replaces: p.v1.0.0
    skipRange: '>=0.9.0 <1.1.0'
---
schema: olm.bundle
package: p
name: p.v1.1.0
image: quay.io/p/b:1.1.0
properties:
  - {type: olm.package, value: {packageName: p, version: 1.1.0}}
`),
			want: []blob{
				{"catalog.yaml:3 olm.package//p", `{"defaultChannel":"stable","description":"<b>&amp;</b> \u2028","name":"p","schema":"olm.package"}`},
				{"catalog.yaml:8 olm.channel/p/stable", `{"entries":[{"name":"p.v1.0.0"},{"name":"p.v1.1.0","replaces":"p.v1.0.0","skipRange":">=0.9.0 <1.1.0"}],"name":"stable","package":"p","schema":"olm.channel"}`},
				{"catalog.yaml:17 olm.bundle/p/p.v1.1.0", `{"image":"quay.io/p/b:1.1.0","name":"p.v1.1.0","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.1.0"}}],"schema":"olm.bundle"}`},
			},
		},
		{
			name: "YAML 1.1 scalars and numbers as operator-registry converts them",
			fsys: files("x.yaml", "schema: example.com/x\nyes: no\nn: 012\nh: 0x1F\nf: 1.50\nbig: 12345678901234567890\nd: 2026-08-22\nnothing: ~\n"),
			want: []blob{{"x.yaml:1 example.com/x//", `{"big":12345678901234567000,"d":"2026-08-22","f":1.5,"false":10,"h":31,"nothing":null,"schema":"example.com/x","true":false}`}},
		},
		{
			name: "mixed: one JSON object then YAML documents, and files of both kinds",
			fsys: files(
				"a.json", `{"schema":"olm.package","name":"a"}
---
schema: olm.package
name: b
`,
				"b.yaml", "schema: olm.package\nname: c\n",
			),
			want: []blob{
				{"a.json:1 olm.package//a", `{"name":"a","schema":"olm.package"}`},
				{"a.json:3 olm.package//b", `{"name":"b","schema":"olm.package"}`},
				{"b.yaml:1 olm.package//c", ""},
			},
		},
		{
			name: "files in walk order, whatever their names",
			fsys: files(
				"b.json", `{"schema":"s","name":"b.json"}`,
				"a.json", `{"schema":"s","name":"a.json"}`,
				"a/z", `{"schema":"s","name":"a/z"}`,
				"A/catalog", "schema: s\nname: A/catalog\n",
				"a/b/c.txt", `{"schema":"s","name":"a/b/c.txt"}`,
			),
			want: []blob{
				{"A/catalog:1 s//A/catalog", ""},
				{"a/b/c.txt:1 s//a/b/c.txt", ""},
				{"a/z:1 s//a/z", ""},
				{"a.json:1 s//a.json", ""},
				{"b.json:1 s//b.json", ""},
			},
		},
		{
			name: ".indexignore: names, anchored paths, directories, globs, negation, nested domains",
			fsys: files(
				".indexignore", "# comments and blank lines are skipped\n\n*.md\n/build\nscratch/\n**/tmp/*.json\n!keep.md\n",
				"README.md", "not a catalog",
				"keep.md", `{"schema":"s","name":"keep.md"}`,
				"build", "not a catalog",
				"sub/build", `{"schema":"s","name":"sub/build"}`,
				"scratch/x.json", "not a catalog",
				"sub/scratch/y.json", "not a catalog",
				"sub/tmp/t.json", "not a catalog",
				"sub/tmp/t.yaml", "schema: s\nname: sub/tmp/t.yaml\n",
				"pkg/.indexignore", "catalog.json\n/notes\n",
				"pkg/catalog.json", "not a catalog",
				"pkg/catalog.yaml", "schema: s\nname: pkg/catalog.yaml\n",
				"pkg/notes/n", "not a catalog",
				"other/catalog.json", `{"schema":"s","name":"other/catalog.json"}`,
				"other/notes", `{"schema":"s","name":"other/notes"}`,
			),
			want: []blob{
				{"keep.md:1 s//keep.md", ""},
				{"other/catalog.json:1 s//other/catalog.json", ""},
				{"other/notes:1 s//other/notes", ""},
				{"pkg/catalog.yaml:1 s//pkg/catalog.yaml", ""},
				{"sub/build:1 s//sub/build", ""},
				{"sub/tmp/t.yaml:1 s//sub/tmp/t.yaml", ""},
			},
		},
		{
			name: ".indexignore: a re-included file inside an excluded directory is read (unlike git)",
			fsys: files(
				".indexignore", "vendor/\n!vendor/keep.json\n",
				"vendor/drop.json", "not a catalog",
				"vendor/keep.json", `{"schema":"s","name":"vendor/keep.json"}`,
			),
			want: []blob{{"vendor/keep.json:1 s//vendor/keep.json", ""}},
		},
		{
			name: "keys schema, package and name matched case-insensitively",
			fsys: files("c.json", `{"Schema":"olm.channel","PACKAGE":"p","Name":"fast","Entries":[{"NAME":"p.v1"}]}`),
			want: []blob{{"c.json:1 olm.channel/p/fast", `{"Entries":[{"NAME":"p.v1"}],"Name":"fast","PACKAGE":"p","Schema":"olm.channel"}`}},
			check: func(t *testing.T, cfg *DeclarativeConfig) {
				if ch := cfg.Channels[0]; ch.Package != "p" || ch.Name != "fast" || len(ch.Entries) != 1 || ch.Entries[0].Name != "p.v1" {
					t.Errorf("channel = %+v", ch)
				}
			},
		},
		{
			name: "exact duplicate keys: the last wins, as in a map",
			fsys: files("d.json", `{"schema":"s","name":"first","name":"second"}`),
			want: []blob{{"d.json:1 s//second", `{"name":"second","schema":"s"}`}},
		},
		{
			name: "unknown schemas are kept as Others",
			fsys: files("o.yaml", "schema: olm.template.basic\nentries: []\n---\nschema: example.com/v1\npackage: p\nname: x\n"),
			want: []blob{{"o.yaml:1 olm.template.basic//", ""}, {"o.yaml:4 example.com/v1/p/x", ""}},
			check: func(t *testing.T, cfg *DeclarativeConfig) {
				if len(cfg.Others) != 2 || cfg.Others[1].Name != "x" || cfg.Others[1].Pos.Line != 4 {
					t.Errorf("others = %v", cfg.Others)
				}
			},
		},
		{
			name: "a bundle without an olm.package property is the model's business",
			fsys: files("b.json", `{"schema":"olm.bundle","package":"p","name":"p.v1","image":"i"}`),
			want: []blob{{"b.json:1 olm.bundle/p/p.v1", ""}},
		},
		{
			name: "CRLF line endings",
			fsys: files("w.yaml", "schema: olm.package\r\nname: w\r\n---\r\nschema: olm.package\r\nname: x\r\n"),
			want: []blob{{"w.yaml:1 olm.package//w", `{"name":"w","schema":"olm.package"}`}, {"w.yaml:4 olm.package//x", ""}},
		},
		{
			name: "empty files and a trailing marker give nothing",
			fsys: files("empty.json", "", "t.yaml", "schema: s\n---\n"),
			want: []blob{{"t.yaml:1 s//", ""}},
		},
		{
			name: "duplicate keys after case folding",
			fsys: files("p/catalog.json", `{"schema":"olm.package","name":"a"}

{"schema":"olm.package",
 "name":"b","Name":"c"}`),
			err: `p/catalog.json:3: duplicate keys for key "name": ["Name" "name"]`,
		},
		{
			name: "duplicate keys after Unicode full case folding",
			fsys: files("u.yaml", "schema: s\nstraße: 1\nSTRASSE: 2\n"),
			err:  `u.yaml:1: duplicate keys for key "strasse": ["STRASSE" "straße"]`,
		},
		{
			name: "empty schema",
			fsys: files("e.yaml", "schema: olm.package\nname: a\n---\n# no schema here\nname: b\nschema: ''\n"),
			err:  `e.yaml:5: blob has no schema`,
		},
		{
			name: "missing schema in JSON",
			fsys: files("e.json", `{"schema":"s"}`+"\n"+`{"name":"x"}`),
			err:  `e.json:2: blob has no schema`,
		},
		{
			name: "a schema that is not a string",
			fsys: files("n.json", `{"schema":1}`),
			err:  `n.json:1: expected value for key "schema" to be a string, got 1`,
		},
		{
			name: "malformed JSON at a line",
			fsys: files("m.json", `{"schema":"s","name":"a"}
{"schema":"s","name":"b"}
{
  "schema": "s",
  "name": "c",,
}`),
			err: `m.json:5: invalid JSON: invalid character ',' looking for beginning of object key string`,
		},
		{
			name: "malformed YAML at a line",
			fsys: files("m.yaml", "schema: s\nname: a\n---\nschema: s\nname: b\ndescription: x\n  bad: indent\n"),
			err:  `m.yaml:7: invalid YAML: mapping values are not allowed in this context`,
		},
		{
			name: "a null key (YAML 1.1: null is null)",
			fsys: files("k.yaml", "schema: s\nnull: x\n"),
			err:  `k.yaml:1: invalid YAML: unsupported map key`,
		},
		{
			name: "a bad document separator",
			fsys: files("m.yaml", "schema: s\n---x\nschema: t\n"),
			err:  `m.yaml:2: invalid YAML: invalid Yaml document separator: x`,
		},
		{
			name: "an empty document (blank lines after the last marker)",
			fsys: files("m.yaml", "schema: s\n---\n\n"),
			err:  `m.yaml:3: blob is empty`,
		},
		{
			name: "a blob that is not an object",
			fsys: files("a.json", `{"schema":"s"}`+"\n"+`{"schema":"t"}`+"\n"+`["x"]`),
			err:  `a.json:3: json: cannot unmarshal array into an object`,
		},
		{
			name: "an olm.channel blob its type cannot hold",
			fsys: files("c.yaml", "schema: olm.package\nname: p\n---\nschema: olm.channel\nname: c\npackage: p\nentries: {}\n"),
			err:  `c.yaml:4: parse channel: json: cannot unmarshal object into Go struct field Channel.entries`,
		},
		{
			name: "an olm.package icon that is not base64",
			fsys: files("p.json", `{"schema":"olm.package","name":"p","icon":{"base64data":"not base64!","mediatype":"image/png"}}`),
			err:  `p.json:1: parse package: illegal base64 data`,
		},
		{
			name: "an olm.bundle.object that is not base64",
			fsys: files("b.json", `{"schema":"olm.bundle","name":"b","package":"p","properties":[{"type":"olm.bundle.object","value":{"data":"%%%"}}]}`),
			err:  `b.json:1: read bundle objects: package "p", bundle "b": parse property at index 0 as bundle object: illegal base64 data`,
		},
		{
			name: "the first error in load order wins",
			fsys: files(
				"a/ok.json", `{"schema":"s"}`,
				"b/1.json", `{"schema":"olm.channel","entries":5}`,
				"b/2.json", `{`,
				"c.json", `{"x":1}`,
			),
			err: `b/1.json:1: parse channel`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadFS(context.Background(), tt.fsys)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q...", err, tt.err)
				}
				var le *Error
				if !errors.As(err, &le) || le.Pos.File == "" || le.Pos.Line == 0 {
					t.Errorf("error %v is not an *Error with a position", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range cfg.Metas {
				got = append(got, describe(m))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("metas:\n%s\nwant %d", strings.Join(got, "\n"), len(tt.want))
			}
			for i, w := range tt.want {
				if got[i] != w.at {
					t.Errorf("meta %d = %s, want %s", i, got[i], w.at)
				}
				if w.json != "" && string(cfg.Metas[i].Blob) != w.json {
					t.Errorf("meta %d blob:\n got %s\nwant %s", i, cfg.Metas[i].Blob, w.json)
				}
			}
			if tt.check != nil {
				tt.check(t, cfg)
			}
		})
	}
}

// TestLoadFile reads one file, a JSON stream or YAML documents, naming it
// as asked.
func TestLoadFile(t *testing.T) {
	fsys := files(
		"index.json", `{"schema":"olm.package","name":"p"}{"schema":"olm.package","name":"q"}`,
		"index.yaml", "schema: olm.package\nname: p\n---\nschema: olm.package\nname: q\n",
		"bad.yaml", "schema: olm.package\nname: [\n",
	)
	for _, name := range []string{"index.json", "index.yaml"} {
		cfg, err := LoadFile(context.Background(), fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Packages) != 2 || cfg.Packages[1].Name != "q" || cfg.Metas[0].Pos.File != name {
			t.Errorf("%s: %+v", name, cfg.Packages)
		}
	}
	if _, err := LoadFile(context.Background(), fsys, "bad.yaml"); err == nil || !strings.HasPrefix(err.Error(), "bad.yaml:") {
		t.Errorf("bad.yaml: error %v", err)
	}
	cfg, err := LoadReader(context.Background(), strings.NewReader("schema: s\n"), "stdin")
	if err != nil || len(cfg.Others) != 1 || cfg.Others[0].Pos.File != "stdin" {
		t.Errorf("LoadReader: %v, %v", cfg, err)
	}
	if _, err := LoadFile(context.Background(), fsys, "missing.json"); err == nil {
		t.Error("LoadFile of a missing file succeeded")
	}
}

// TestLoadSubdirectory: Load's root names the FBC root inside fsys, and
// positions are relative to it.
func TestLoadSubdirectory(t *testing.T) {
	fsys := files("image/configs/p/catalog.json", `{"schema":"olm.package","name":"p"}`, "image/etc/passwd", "root:x:0:0")
	cfg, err := Load(context.Background(), fsys, "image/configs")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Metas) != 1 || cfg.Metas[0].Pos.File != "p/catalog.json" {
		t.Errorf("metas = %v", cfg.Metas)
	}
}

// TestLoadCanceled: a canceled context stops the load.
func TestLoadCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoadFS(ctx, files("a.json", `{"schema":"s"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

// sharedCatalogBlobs is the SHA-256 of the shared catalog's blobs, each
// followed by a newline, in load order: the bytes catalogd stores (its
// all.json), as operator-registry v1.73.0's WalkMetasFS (concurrency 1)
// wrote them for this catalog.
const sharedCatalogBlobs = "d726dda345321a5649bdc3ca4bc7184104ed0202701a1f764178d1038ea996c3"

// TestSharedCatalog loads the real catalog: the counts its README gives,
// and every blob byte for byte as operator-registry re-encodes it.
func TestSharedCatalog(t *testing.T) {
	cfg, err := LoadFS(context.Background(), os.DirFS(sharedCatalog))
	if err != nil {
		t.Fatal(err)
	}
	got := []int{len(cfg.Packages), len(cfg.Channels), len(cfg.Bundles), len(cfg.Deprecations), len(cfg.Others)}
	if want := []int{33, 78, 745, 0, 0}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("packages, channels, bundles, deprecations, others = %v, want %v", got, want)
	}
	if len(cfg.Metas) != 33+78+745 {
		t.Errorf("%d metas", len(cfg.Metas))
	}
	h := sha256.New()
	for _, m := range cfg.Metas {
		h.Write(m.Blob)
		h.Write([]byte{'\n'})
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != sharedCatalogBlobs {
		t.Errorf("blobs hash to %s, want %s", sum, sharedCatalogBlobs)
	}
	// The real-data quirk the README names: konflux/ holds konflux-operator.
	for _, p := range cfg.Packages {
		if p.Name == "konflux-operator" && p.Pos.File != "konflux/catalog.yaml" {
			t.Errorf("konflux-operator at %s", p.Pos.File)
		}
	}
}
