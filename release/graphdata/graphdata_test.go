package graphdata

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/release/graph"
)

// tree returns a minimal valid graph-data tree (version 1.1.0, empty raw
// metadata, empty blocked-edges/ and channels/) with files added or
// replaced; a nil value deletes the path.
func tree(files map[string]*string) fstest.MapFS {
	s := func(v string) *string { return &v }
	base := map[string]*string{
		"version":           s("1.1.0\n"),
		"raw/metadata.json": s("{}\n"),
	}
	for k, v := range files {
		base[k] = v
	}
	fsys := fstest.MapFS{
		"blocked-edges": {Mode: fs.ModeDir | 0o755},
		"channels":      {Mode: fs.ModeDir | 0o755},
	}
	for k, v := range base {
		if v == nil {
			delete(fsys, k)
			continue
		}
		fsys[k] = &fstest.MapFile{Data: []byte(*v), Mode: 0o644}
	}
	return fsys
}

func str(s string) *string { return &s }

// files is tree with every value present.
func files(kv ...string) fstest.MapFS {
	m := map[string]*string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = str(kv[i+1])
	}
	return tree(m)
}

func mustLoad(t *testing.T, fsys fs.FS, opts Options) *GraphData {
	t.Helper()
	gd, err := Load(fsys, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return gd
}

func wantErr(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Load succeeded, want an error containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

func noSkip() Options { return Options{Skip: map[Category]bool{}} }

// TestVersionFile is spec §3.2's table.
func TestVersionFile(t *testing.T) {
	for _, tc := range []struct {
		content string
		ok      bool
		warn    bool
		want    string
	}{
		{"1.0.0", true, false, "1.0.0"},
		{"1.1.0\n", true, false, "1.1.0"},
		{"1.2.0", true, false, "1.2.0"},
		{"1.2.7", true, false, "1.2.7"},
		{" 1.2.0-rc.1 \n", true, false, "1.2.0-rc.1"},
		{"1.3.0", true, true, "1.3.0"},
		{"1.99.0", true, true, "1.99.0"},
		{"2.0.0", false, false, ""},
		{"0.9.0", false, false, ""},
		{"1.2", false, false, ""},
		{"v1.2.0", false, false, ""},
		{"", false, false, ""},
		{"1.2.0\n1.3.0\n", false, false, ""},
	} {
		t.Run(tc.content, func(t *testing.T) {
			gd, err := Load(tree(map[string]*string{"version": str(tc.content)}), DefaultOptions())
			if !tc.ok {
				wantErr(t, err, "version")
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if gd.SchemaVersion.String() != tc.want {
				t.Errorf("SchemaVersion = %s, want %s", gd.SchemaVersion, tc.want)
			}
			var warned bool
			for _, w := range gd.Warnings {
				warned = warned || w.File == "version"
			}
			if warned != tc.warn {
				t.Errorf("version warning = %v, want %v (warnings %v)", warned, tc.warn, gd.Warnings)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		_, err := Load(tree(map[string]*string{"version": nil}), DefaultOptions())
		wantErr(t, err, "version")
	})
}

func TestMissingDirectories(t *testing.T) {
	for _, dir := range []string{"channels", "blocked-edges"} {
		for _, opts := range []Options{DefaultOptions(), UpstreamOptions()} {
			fsys := tree(nil)
			delete(fsys, dir)
			_, err := Load(fsys, opts)
			wantErr(t, err, dir)
		}
	}
	// Only the two directories are required.
	mustLoad(t, tree(nil), DefaultOptions())
}

func TestRawMetadata(t *testing.T) {
	const add = graph.KeyPreviousAdd
	for _, tc := range []struct {
		name    string
		content *string
		errs    []string // nil: success
	}{
		{"missing", nil, []string{"raw/metadata.json"}},
		{"syntax error", str("{\n  \"4.1.0\": {\n    \"k\": \"v\",\n  }\n}\n"), []string{"raw/metadata.json", "line 4"}},
		{"non-string value", str("{\n  \"4.1.0\": {\n    \"k\": 1\n  }\n}\n"), []string{"raw/metadata.json", "line 3"}},
		{"array", str("[]"), []string{"raw/metadata.json", "line 1"}},
		{"flat object", str("{\"4.1.0\": \"x\"}"), []string{"raw/metadata.json"}},
		{"null", str("null"), []string{"raw/metadata.json"}},
		{"empty file", str(""), []string{"raw/metadata.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tree(map[string]*string{"raw/metadata.json": tc.content}), UpstreamOptions())
			wantErr(t, err, tc.errs...)
		})
	}
	t.Run("valid", func(t *testing.T) {
		gd := mustLoad(t, files("raw/metadata.json", `{
  "4.1.0-rc.9": {"`+add+`": "4.1.0-rc.7,4.1.0-rc.8"},
  "not-semver": {"k": "v"},
  "4.1.0": {"`+add+`": "4.1.0-rc.4,4.1.0-rc.9", "x": "y"}
}`), DefaultOptions())
		var got []string
		for _, r := range gd.Raw {
			got = append(got, r.Version.String()+" "+r.Metadata[add])
		}
		want := []string{"4.1.0 4.1.0-rc.4,4.1.0-rc.9", "4.1.0-rc.9 4.1.0-rc.7,4.1.0-rc.8"}
		if !slices.Equal(got, want) {
			t.Errorf("raw = %q, want %q", got, want)
		}
		if len(gd.Warnings) != 1 || gd.Warnings[0].File != "raw/metadata.json" || gd.Warnings[0].Line != 3 ||
			!strings.Contains(gd.Warnings[0].Message, "not-semver") {
			t.Errorf("warnings = %v, want one for not-semver at raw/metadata.json:3", gd.Warnings)
		}
	})
}

// TestCategories is the negative-case table of shared/conformance/README.md.
func TestCategories(t *testing.T) {
	badYAML := "_to: 4.1.10\nfrom: .*\n"
	for _, tc := range []struct {
		name     string
		fsys     fstest.MapFS
		category Category
		file     string
	}{
		{"missing_extension in blocked-edges", files("blocked-edges/OWNERS", "x"), MissingExtension, "blocked-edges/OWNERS"},
		{"missing_extension in channels", files("channels/_OWNERS", "x"), MissingExtension, "channels/_OWNERS"},
		{"missing_extension leading dot", files("channels/.keep", ""), MissingExtension, "channels/.keep"},
		{"invalid_extension .json", files("blocked-edges/4.1.0.json", "{}"), InvalidExtension, "blocked-edges/4.1.0.json"},
		{"invalid_extension .yml", files("blocked-edges/4.1.0.yml", "to: 4.1.0\nfrom: .*\n"), InvalidExtension, "blocked-edges/4.1.0.yml"},
		{"invalid_extension .yml channel", files("channels/stable-4.1.yml", "name: stable-4.1\nversions: [4.1.0]\n"), InvalidExtension, "channels/stable-4.1.yml"},
		{"invalid_extension README.md", files("channels/README.md", "# hi"), InvalidExtension, "channels/README.md"},
		{"deserialize", files("blocked-edges/invalid_format.yaml", badYAML), Deserialize, "blocked-edges/invalid_format.yaml"},
		{"file", func() fstest.MapFS {
			f := tree(nil)
			f["blocked-edges/x.yaml"] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			f["blocked-edges/x.yaml/y"] = &fstest.MapFile{Data: []byte("to: 4.1.0\nfrom: .*\n")}
			return f
		}(), Unreadable, "blocked-edges/x.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Default: only files upstream never meant to read are skipped.
			gd, err := Load(tc.fsys, DefaultOptions())
			if DefaultOptions().Skip[tc.category] {
				if err != nil {
					t.Fatalf("DefaultOptions: %v", err)
				}
				checkWarned(t, gd, tc.category, tc.file)
			} else {
				wantErr(t, err, tc.file)
				var p *Problem
				if !errors.As(err, &p) || p.Category != tc.category {
					t.Errorf("error %v is not a *Problem of category %s", err, tc.category)
				}
			}
			// Upstream: everything is skipped.
			gd, err = Load(tc.fsys, UpstreamOptions())
			if err != nil {
				t.Fatalf("UpstreamOptions: %v", err)
			}
			checkWarned(t, gd, tc.category, tc.file)
			if len(gd.Blocks)+len(gd.Risks)+len(gd.Channels) != 0 {
				t.Errorf("skipped file still produced data: %+v", gd)
			}
			// The category disallowed, the others skipped: an error.
			opts := UpstreamOptions()
			delete(opts.Skip, tc.category)
			_, err = Load(tc.fsys, opts)
			wantErr(t, err, tc.file)
		})
	}
	const cats = "missing_extension,invalid_extension"
	var skipped []string
	for _, c := range []Category{MissingExtension, InvalidExtension, Unreadable, Deserialize} {
		if DefaultOptions().Skip[c] {
			skipped = append(skipped, string(c))
		}
	}
	if strings.Join(skipped, ",") != cats {
		t.Errorf("DefaultOptions skips %v, want %s", skipped, cats)
	}
}

func checkWarned(t *testing.T, gd *GraphData, c Category, file string) {
	t.Helper()
	for _, w := range gd.Warnings {
		if w.Category == c && w.File == file {
			return
		}
	}
	t.Errorf("no %s warning for %s in %v", c, file, gd.Warnings)
}

func TestAllErrorsReported(t *testing.T) {
	_, err := Load(files(
		"blocked-edges/a.yaml", "to: x\nfrom: .*\n",
		"blocked-edges/b", "",
		"channels/c.yaml", "name: stable-4.1\nversions: [bad]\n",
	), noSkip())
	wantErr(t, err, "blocked-edges/a.yaml:1", "blocked-edges/b", "channels/c.yaml:2")
}

func TestExtensions(t *testing.T) {
	rule := "to: 4.1.0\nfrom: .*\n"
	gd := mustLoad(t, files(
		"blocked-edges/a.yaml", rule,
		"blocked-edges/b.yaaml", rule,
		"blocked-edges/c.xyaml", rule,
		"blocked-edges/d.YAML", rule,
		"blocked-edges/e.yml", rule,
		"blocked-edges/f.yaml.bak", rule,
	), DefaultOptions())
	var got []string
	for _, b := range gd.Blocks {
		got = append(got, b.File)
	}
	if want := []string{"blocked-edges/a.yaml", "blocked-edges/b.yaaml", "blocked-edges/c.xyaml"}; !slices.Equal(got, want) {
		t.Errorf("read %v, want %v", got, want)
	}
	if len(gd.Warnings) != 3 {
		t.Errorf("warnings = %v, want 3 (YAML, yml, bak)", gd.Warnings)
	}
}

// TestBlockedEdgeShapes is the classification table of spec §3.6.
func TestBlockedEdgeShapes(t *testing.T) {
	const risk = "url: https://example.com/1\nname: R\nmessage: m\nmatchingRules:\n- type: Always\n"
	for _, tc := range []struct {
		name, content string
		want          string // "block", "risk" or "neither"
	}{
		{"exact to+from", "to: 4.1.0\nfrom: .*\n", "block"},
		{"to+from with a comment", "# why\nto: 4.1.0\nfrom: ^4\\.0\\.\n", "block"},
		{"full risk", "to: 4.1.0\nfrom: .*\n" + risk, "risk"},
		{"full risk with fixedIn and autoExtend", "to: 4.1.0\nfrom: .*\nfixedIn: 4.1.1\nautoExtend: {}\n" + risk, "risk"},
		{"risk with empty rule list", "to: 4.1.0\nfrom: .*\nurl: u\nname: n\nmessage: m\nmatchingRules: []\n", "risk"},
		{"to+from+fixedIn only", "to: 4.1.0\nfrom: .*\nfixedIn: 4.1.1\n", "neither"},
		{"to+from+url", "to: 4.1.0\nfrom: .*\nurl: https://example.com/1\n", "neither"},
		{"risk without matchingRules", "to: 4.1.0\nfrom: .*\nurl: u\nname: n\nmessage: m\n", "neither"},
		{"matchingRules not a list", "to: 4.1.0\nfrom: .*\nurl: u\nname: n\nmessage: m\nmatchingRules: Always\n", "neither"},
		{"bad regex", "to: 4.1.0\nfrom: 4\\.0\\.(\n", "neither"},
		{"bad regex in a risk", "to: 4.1.0\nfrom: \"[\"\n" + risk, "neither"},
		{"bad semver", "to: 4.1\nfrom: .*\n", "neither"},
		{"bad semver in a risk", "to: v4.1.0\nfrom: .*\n" + risk, "neither"},
		{"missing from", "to: 4.1.0\n", "neither"},
		{"from is a list", "to: 4.1.0\nfrom: [a]\n", "neither"},
		{"not a mapping", "- to: 4.1.0\n", "neither"},
		{"empty", "", "neither"},
		{"invalid YAML", "to: [4.1.0\nfrom: .*\n", "neither"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := files("blocked-edges/f.yaml", tc.content)
			gd := mustLoad(t, fsys, UpstreamOptions())
			got := "neither"
			switch {
			case len(gd.Blocks) == 1 && len(gd.Risks) == 0:
				got = "block"
			case len(gd.Blocks) == 0 && len(gd.Risks) == 1:
				got = "risk"
			case len(gd.Blocks)+len(gd.Risks) > 0:
				got = "both"
			}
			if got != tc.want {
				t.Fatalf("classified as %s, want %s (warnings %v)", got, tc.want, gd.Warnings)
			}
			_, err := Load(fsys, DefaultOptions())
			if tc.want == "neither" {
				checkWarned(t, gd, Deserialize, "blocked-edges/f.yaml")
				wantErr(t, err, "blocked-edges/f.yaml")
			} else if err != nil {
				t.Errorf("DefaultOptions: %v", err)
			}
		})
	}
}

// TestErrorLines checks that problems point at file:line.
func TestErrorLines(t *testing.T) {
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"bad regex", "blocked-edges/4.1.0.yaml", "# comment\nto: 4.1.0\nfrom: 4\\.0\\.(\n", "blocked-edges/4.1.0.yaml:3:"},
		{"bad semver", "blocked-edges/4.1.0.yaml", "# comment\n\nto: 4.1.0.0\nfrom: .*\n", "blocked-edges/4.1.0.yaml:3:"},
		{"to is a number", "blocked-edges/4.1.yaml", "from: .*\nto: 4.1\n", "blocked-edges/4.1.yaml:2:"},
		{"missing name", "blocked-edges/r.yaml", "# c\nto: 4.1.0\nfrom: .*\nurl: u\n", "blocked-edges/r.yaml:2:"},
		{"name not a string", "blocked-edges/r.yaml", "to: 4.1.0\nfrom: .*\nurl: u\nname: [x]\nmessage: m\nmatchingRules: []\n", "blocked-edges/r.yaml:4:"},
		{"matchingRules not a list", "blocked-edges/r.yaml", "to: 4.1.0\nfrom: .*\nurl: u\nname: n\nmessage: m\nmatchingRules:\n  type: Always\n", "blocked-edges/r.yaml:7:"},
		{"rule not a mapping", "blocked-edges/r.yaml", "to: 4.1.0\nfrom: .*\nurl: u\nname: n\nmessage: m\nmatchingRules:\n- type: Always\n- Always\n", "blocked-edges/r.yaml:8:"},
		{"promql not a mapping", "blocked-edges/r.yaml", "to: 4.1.0\nfrom: .*\nurl: u\nname: n\nmessage: m\nmatchingRules:\n- type: PromQL\n  promql: up\n", "blocked-edges/r.yaml:8:"},
		{"invalid YAML", "blocked-edges/y.yaml", "to: 4.1.0\nfrom: .*\nbad: [\n", "blocked-edges/y.yaml:3:"},
		{"duplicate key", "blocked-edges/d.yaml", "to: 4.1.0\nfrom: .*\nto: 4.1.1\n", "blocked-edges/d.yaml:3:"},
		{"channel bad version", "channels/stable-4.1.yaml", "name: stable-4.1\nversions:\n- 4.1.0\n- 4.1.x\n- 4.1.2\n", "channels/stable-4.1.yaml:4:"},
		{"channel version not a scalar", "channels/stable-4.1.yaml", "name: stable-4.1\nversions:\n- 4.1.0\n- [4.1.1]\n", "channels/stable-4.1.yaml:4:"},
		{"channel missing versions", "channels/stable-4.1.yaml", "# c\nname: stable-4.1\n", "channels/stable-4.1.yaml:2:"},
		{"channel versions null", "channels/stable-4.1.yaml", "name: stable-4.1\nversions:\n", "channels/stable-4.1.yaml:2:"},
		{"channel missing name", "channels/stable-4.1.yaml", "versions: [4.1.0]\n", "channels/stable-4.1.yaml:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(files(tc.file, tc.content), DefaultOptions())
			wantErr(t, err, tc.want)
		})
	}
}

func TestMatchingRules(t *testing.T) {
	content := `to: 4.7.4
from: 4\.6\..*
url: https://example.com/bug
name: Example
message: |-
  Two
  lines.
fixedIn: 4.7.5
matchingRules:
- type: Always
- type: PromQL
  promql:
    promql: |
      group(cluster_version_payload{version=~"4.7.*"} > 0)
- type: PromQL
  extra: ignored
  promql:
    promql: max(x)
    other: ignored
- promql:
    promql: no type
- type: Always
  promql: {}
`
	gd := mustLoad(t, files("blocked-edges/4.7.4-example.yaml", content), DefaultOptions())
	if len(gd.Risks) != 1 || len(gd.Blocks) != 0 {
		t.Fatalf("risks %d blocks %d, want one risk", len(gd.Risks), len(gd.Blocks))
	}
	r := gd.Risks[0]
	if r.File != "blocked-edges/4.7.4-example.yaml" || r.Line != 1 || r.To.String() != "4.7.4" || r.From.String() != `4\.6\..*` {
		t.Errorf("risk block = %s:%d to %s from %s", r.File, r.Line, r.To, r.From)
	}
	if r.Risk.URL != "https://example.com/bug" || r.Risk.Name != "Example" || r.Risk.Message != "Two\nlines." {
		t.Errorf("risk = %+v", r.Risk)
	}
	want := []graph.MatchingRule{
		{Type: "Always"},
		{Type: "PromQL", PromQL: "group(cluster_version_payload{version=~\"4.7.*\"} > 0)\n"},
		{Type: "PromQL", PromQL: "max(x)"},
		{Type: "", PromQL: "no type"},
		{Type: "Always"},
	}
	if !slices.Equal(r.Risk.MatchingRules, want) {
		t.Errorf("rules =\n%q\nwant\n%q", r.Risk.MatchingRules, want)
	}
}

// TestFileOrder: files are read sorted by name, which fixes risk order.
func TestFileOrder(t *testing.T) {
	risk := func(name string) string {
		return "to: 4.7.4\nfrom: .*\nurl: u\nname: " + name + "\nmessage: m\nmatchingRules:\n- type: Always\n"
	}
	gd := mustLoad(t, files(
		"blocked-edges/4.7.4-zz-vsphere.yaml", risk("Z"),
		"blocked-edges/4.7.4-auth.yaml", risk("A"),
		"blocked-edges/4.7.4-vsphere.yaml", risk("V"),
		"blocked-edges/4.7.4.yaml", "to: 4.7.4\nfrom: x\n",
		"blocked-edges/4.7.3.yaml", "to: 4.7.3\nfrom: y\n",
	), DefaultOptions())
	var names, blocks []string
	for _, r := range gd.Risks {
		names = append(names, r.Risk.Name)
	}
	for _, b := range gd.Blocks {
		blocks = append(blocks, b.From.String())
	}
	if !slices.Equal(names, []string{"A", "V", "Z"}) || !slices.Equal(blocks, []string{"y", "x"}) {
		t.Errorf("risks %v blocks %v, want [A V Z] [y x]", names, blocks)
	}
}

func TestChannels(t *testing.T) {
	gd := mustLoad(t, files(
		"channels/stable-4.7.yaml", "feeder:\n  delay: P1W\n  name: fast-4.7\nname: stable-4.7\nversions:\n- 4.6.1\n- 4.7.0+amd64\ntombstones: [4.6.0]\n",
		"channels/file-name-is-not-the-channel.yaml", "name: fast-4.7\nversions: []\n",
		"channels/candidate-4.7.yaml", "name: candidate-4.7\nversions: [4.7.0, 4.7.0]\n",
	), DefaultOptions())
	var got []string
	for _, c := range gd.Channels {
		var vs []string
		for _, v := range c.Versions {
			vs = append(vs, v.String())
		}
		got = append(got, c.Name+"="+strings.Join(vs, ","))
	}
	want := []string{"candidate-4.7=4.7.0,4.7.0", "fast-4.7=", "stable-4.7=4.6.1,4.7.0+amd64"}
	if !slices.Equal(got, want) {
		t.Errorf("channels = %q, want %q", got, want)
	}
	if got := gd.ChannelNames(); !slices.Equal(got, []string{"candidate-4.7", "fast-4.7", "stable-4.7"}) {
		t.Errorf("ChannelNames = %v", got)
	}
	if c := gd.Channels[2]; c.File != "channels/stable-4.7.yaml" || c.Line != 4 {
		t.Errorf("stable-4.7 at %s:%d, want channels/stable-4.7.yaml:4", c.File, c.Line)
	}
}

func TestChannelErrors(t *testing.T) {
	bad := files("channels/stable-4.1.yaml", "name: stable-4.1\nversions:\n- 4.1.0\n- 4.1.x\n")
	_, err := Load(bad, DefaultOptions())
	wantErr(t, err, "channels/stable-4.1.yaml:4", "4.1.x")
	// Upstream drops the whole file silently; UpstreamOptions skips it with a warning.
	gd := mustLoad(t, bad, UpstreamOptions())
	if len(gd.Channels) != 0 {
		t.Errorf("channels = %+v, want the bad file dropped as a whole", gd.Channels)
	}
	checkWarned(t, gd, Deserialize, "channels/stable-4.1.yaml")

	// A name without '-' is an error whatever the options.
	for _, opts := range []Options{DefaultOptions(), UpstreamOptions()} {
		_, err := Load(files("channels/stable.yaml", "# c\nname: stable\nversions: [4.1.0]\n"), opts)
		wantErr(t, err, "channels/stable.yaml:2", `"stable"`)
	}
	// Two channels with the same name are allowed (annotate decides).
	gd = mustLoad(t, files(
		"channels/a.yaml", "name: stable-4.1\nversions: [4.1.0]\n",
		"channels/b.yaml", "name: stable-4.1\nversions: [4.1.1]\n",
	), DefaultOptions())
	if len(gd.Channels) != 2 || len(gd.ChannelNames()) != 1 {
		t.Errorf("channels = %+v", gd.Channels)
	}
}

func TestProblemError(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{File: "channels/a.yaml", Line: 3, Message: "m"}, "channels/a.yaml:3: m"},
		{Problem{File: "channels/OWNERS", Message: "m"}, "channels/OWNERS: m"},
	} {
		if got := tc.p.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestExtension(t *testing.T) {
	for in, want := range map[string]string{
		"a.yaml": "yaml", "a.b.yml": "yml", "OWNERS": "", ".keep": "", "a.": "", ".a.yaml": "yaml", "x.yaml.bak": "bak",
	} {
		if got := extension(in); got != want {
			t.Errorf("extension(%q) = %q, want %q", in, got, want)
		}
	}
}
