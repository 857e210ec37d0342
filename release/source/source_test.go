package source

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/release/graph"
)

// doc renders a release-metadata document, one field per line so that
// errors can be checked for line numbers. Fields are in the given order.
func doc(fields ...string) string {
	return "{\n" + strings.Join(fields, ",\n") + "\n}\n"
}

const (
	kind    = `"kind": "cincinnati-metadata-v0"`
	payload = `"payload": "quay.io/openshift-release-dev/ocp-release@sha256:abc"`
	amd64   = `"arch": "amd64"`
)

func TestParseMetadataDocument(t *testing.T) {
	type want struct {
		version  string
		payload  string
		md       map[string]string
		previous []string
		next     []string
		keep     bool
	}
	digestMD := func(extra ...string) map[string]string {
		m := map[string]string{graph.KeyManifestRef: "sha256:abc", graph.KeyArch: "amd64"}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name string
		data string
		want *want    // nil: error
		errs []string // substrings of the error
	}{
		{"valid", doc(kind, `"version": "4.16.3"`, `"previous": ["4.16.2", "4.16.1"]`, `"next": ["4.16.4"]`,
			`"metadata": {"url": "https://errata/1"}`, payload, amd64),
			&want{"4.16.3+amd64", "quay.io/openshift-release-dev/ocp-release@sha256:abc", digestMD("url", "https://errata/1"),
				[]string{"4.16.2", "4.16.1"}, []string{"4.16.4"}, true}, nil},
		{"minimal, unknown fields ignored", doc(kind, `"version": "1.0.0"`, payload, amd64, `"extra": {"x": [1]}`),
			&want{"1.0.0+amd64", "quay.io/openshift-release-dev/ocp-release@sha256:abc", digestMD(), nil, nil, true}, nil},
		{"version build replaced by arch", doc(kind, `"version": "4.15.5+whatever.x"`, payload, `"arch": "arm64"`),
			&want{"4.15.5+arm64", "quay.io/openshift-release-dev/ocp-release@sha256:abc",
				map[string]string{graph.KeyManifestRef: "sha256:abc", graph.KeyArch: "arm64"}, nil, nil, true}, nil},
		{"legacy s390x pre-release kept", doc(kind, `"version": "4.2.10-s390x"`, payload, `"arch": "s390x"`),
			&want{"4.2.10-s390x+s390x", "quay.io/openshift-release-dev/ocp-release@sha256:abc",
				map[string]string{graph.KeyManifestRef: "sha256:abc", graph.KeyArch: "s390x"}, nil, nil, true}, nil},
		{"explicit manifestref wins", doc(kind, `"version": "1.0.0"`, payload, amd64, `"manifestref": "sha256:list"`),
			&want{"1.0.0+amd64", "quay.io/openshift-release-dev/ocp-release@sha256:abc",
				map[string]string{graph.KeyManifestRef: "sha256:list", graph.KeyArch: "amd64"}, nil, nil, true}, nil},
		{"tag payload has no manifestref", doc(kind, `"version": "1.0.0"`, `"payload": "quay.io/r:1.0.0"`, amd64),
			&want{"1.0.0+amd64", "quay.io/r:1.0.0", map[string]string{graph.KeyArch: "amd64"}, nil, nil, true}, nil},
		{"registry keys overwrite the file's", doc(kind, `"version": "1.0.0"`, payload, amd64,
			`"metadata": {"`+graph.KeyArch+`": "s390x", "`+graph.KeyManifestRef+`": "sha256:old", "k": "v"}`),
			&want{"1.0.0+amd64", "quay.io/openshift-release-dev/ocp-release@sha256:abc", digestMD("k", "v"), nil, nil, true}, nil},
		{"multi shard dropped", doc(kind, `"version": "4.12.0"`, payload, amd64, `"metadata": {"release.openshift.io/architecture": "multi"}`),
			&want{"4.12.0+amd64", "quay.io/openshift-release-dev/ocp-release@sha256:abc",
				digestMD(graph.KeyPayloadArch, "multi"), nil, nil, false}, nil},
		{"multi payload kept", doc(kind, `"version": "4.12.0"`, payload, `"arch": "multi"`, `"metadata": {"release.openshift.io/architecture": "multi"}`),
			&want{"4.12.0+multi", "quay.io/openshift-release-dev/ocp-release@sha256:abc",
				map[string]string{graph.KeyManifestRef: "sha256:abc", graph.KeyArch: "multi", graph.KeyPayloadArch: "multi"}, nil, nil, true}, nil},
		{"other payload architecture kept", doc(kind, `"version": "4.12.0"`, payload, amd64, `"metadata": {"release.openshift.io/architecture": "amd64"}`),
			&want{"4.12.0+amd64", "quay.io/openshift-release-dev/ocp-release@sha256:abc",
				digestMD(graph.KeyPayloadArch, "amd64"), nil, nil, true}, nil},

		{"wrong kind", doc(`"kind": "cincinnati-metadata-v1"`, `"version": "1.0.0"`, payload, amd64), nil,
			[]string{"rel.json:2:", "kind", "cincinnati-metadata-v1"}},
		{"missing kind", doc(`"version": "1.0.0"`, payload, amd64), nil, []string{"rel.json:", "kind"}},
		{"bad version", doc(kind, `"version": "4.16"`, payload, amd64), nil, []string{"rel.json:3:", "version", "4.16"}},
		{"v-prefixed version", doc(kind, `"version": "v4.16.0"`, payload, amd64), nil, []string{"rel.json:3:", "version"}},
		{"missing version", doc(kind, payload, amd64), nil, []string{"rel.json:", "version"}},
		{"bad arch", doc(kind, `"version": "1.0.0"`, payload, `"arch": "x86_64"`), nil, []string{"rel.json:5:", "arch", "x86_64"}},
		{"upper-case arch", doc(kind, `"version": "1.0.0"`, payload, `"arch": "AMD64"`), nil, []string{"rel.json:5:", "arch"}},
		{"missing arch", doc(kind, `"version": "1.0.0"`, payload), nil, []string{"rel.json:", "arch"}},
		{"missing payload", doc(kind, `"version": "1.0.0"`, amd64), nil, []string{"rel.json:", "payload"}},
		{"bad previous", doc(kind, `"version": "1.0.0"`, payload, amd64, `"previous": ["0.9"]`), nil, []string{"rel.json:6:", "previous", "0.9"}},
		{"bad next", doc(kind, `"version": "1.0.0"`, payload, amd64, `"next": ["1.1.0", "x"]`), nil, []string{"rel.json:6:", "next"}},
		{"non-string metadata", doc(kind, `"version": "1.0.0"`, payload, amd64, `"metadata": {"n": 1}`), nil, []string{"rel.json", "line 6"}},
		{"syntax error", "{\n" + kind + ",\n\"version\": \"1.0.0\",,\n}", nil, []string{"rel.json", "line 3"}},
		{"not an object", `["x"]`, nil, []string{"rel.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, keep, err := ParseMetadataDocument("rel.json", []byte(tc.data))
			if tc.want == nil {
				if err == nil {
					t.Fatalf("ParseMetadataDocument succeeded, want an error containing %q", tc.errs)
				}
				for _, s := range tc.errs {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseMetadataDocument: %v", err)
			}
			w := tc.want
			if r.Version.String() != w.version || r.Payload != w.payload || keep != w.keep || r.Origin != "rel.json" {
				t.Errorf("release %s payload %s keep %v origin %s, want %s %s %v rel.json",
					r.Version, r.Payload, keep, r.Origin, w.version, w.payload, w.keep)
			}
			if !maps.Equal(r.Metadata, w.md) {
				t.Errorf("metadata = %v, want %v", r.Metadata, w.md)
			}
			var prev, next []string
			for _, v := range r.Previous {
				prev = append(prev, v.String())
			}
			for _, v := range r.Next {
				next = append(next, v.String())
			}
			if !slices.Equal(prev, w.previous) || !slices.Equal(next, w.next) {
				t.Errorf("previous %v next %v, want %v %v", prev, next, w.previous, w.next)
			}
		})
	}
}

// TestJSONErrorColumn: the column of a syntax error points at the
// offending character.
func TestJSONErrorColumn(t *testing.T) {
	// The second ',' is character 20 of line 3.
	_, _, err := ParseMetadataDocument("rel.json", []byte("{\n"+kind+",\n\"version\": \"1.0.0\",,\n}"))
	if err == nil || !strings.Contains(err.Error(), "line 3, column 20:") {
		t.Errorf("error = %v, want line 3, column 20", err)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		spec, want string // want: String() of the source, "" for an error
	}{
		{"graph:fixtures/graph.json", "graph:fixtures/graph.json"},
		{"metadata:releases/", "metadata:releases/"},
		{"graph:C:/x.json", "graph:C:/x.json"},
		{"bogus", ""},
		{"x:y", ""},
		{"graph:", ""},
		{"metadata:", ""},
		{":file", ""},
		{"", ""},
		{"Graph:x.json", ""},
	} {
		s, err := Parse(tc.spec, Options{})
		if tc.want == "" {
			if err == nil {
				t.Errorf("Parse(%q) = %v, want an error", tc.spec, s)
			} else if !strings.Contains(err.Error(), "graph:FILE") {
				t.Errorf("Parse(%q) error %q does not list the kinds", tc.spec, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.spec, err)
			continue
		}
		if s.String() != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.spec, s, tc.want)
		}
	}
}

func metaDoc(version, arch string, previous ...string) string {
	prev := `"previous": []`
	if len(previous) > 0 {
		prev = `"previous": ["` + strings.Join(previous, `", "`) + `"]`
	}
	return doc(kind, `"version": "`+version+`"`, prev, `"payload": "quay.io/r@sha256:`+version+arch+`"`, `"arch": "`+arch+`"`)
}

var discard = slog.New(slog.DiscardHandler)

func TestMetadataDir(t *testing.T) {
	fsys := fstest.MapFS{
		"1.0.0-amd64.json": {Data: []byte(metaDoc("1.0.0", "amd64"))},
		"1.1.0-amd64.json": {Data: []byte(metaDoc("1.1.0", "amd64", "1.0.0", "0.9.0"))},
		"1.1.0-arm64.json": {Data: []byte(metaDoc("1.1.0", "arm64", "1.0.0"))},
		"1.2.0-shard.json": {Data: []byte(doc(kind, `"version": "1.2.0"`, payload, amd64, `"metadata": {"release.openshift.io/architecture": "multi"}`))},
		"README.md":        {Data: []byte("not read")},
		"sub/x.json":       {Data: []byte("not read")},
	}
	s, err := Parse("metadata:releases", Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := s.(*MetadataDir)
	md.FS = fsys
	g, err := md.Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var nodes, edges []string
	for _, i := range g.SortedOrder() {
		n := g.Node(i)
		nodes = append(nodes, map[bool]string{true: "~", false: ""}[n.Abstract]+n.Version)
	}
	for _, e := range g.Edges() {
		edges = append(edges, g.Node(e[0]).Version+" -> "+g.Node(e[1]).Version)
	}
	slices.Sort(edges)
	if want := []string{"~0.9.0+amd64", "1.0.0+amd64", "~1.0.0+arm64", "1.1.0+amd64", "1.1.0+arm64"}; !slices.Equal(nodes, want) {
		t.Errorf("nodes = %v, want %v", nodes, want)
	}
	if want := []string{"0.9.0+amd64 -> 1.1.0+amd64", "1.0.0+amd64 -> 1.1.0+amd64", "1.0.0+arm64 -> 1.1.0+arm64"}; !slices.Equal(edges, want) {
		t.Errorf("edges = %v, want %v", edges, want)
	}

	t.Run("errors name the file", func(t *testing.T) {
		bad := maps.Clone(fsys)
		bad["2.0.0.json"] = &fstest.MapFile{Data: []byte(doc(kind, `"version": "2.0"`, payload, amd64))}
		_, err := (&MetadataDir{Dir: "releases", Logger: discard, FS: bad}).Graph(context.Background())
		if err == nil || !strings.Contains(err.Error(), filepath.Join("releases", "2.0.0.json")+":3:") {
			t.Errorf("error = %v, want one naming releases/2.0.0.json:3", err)
		}
	})
	// A pipe would block the read, a device or a huge file never end:
	// refused naming the file, before any read.
	for name, tc := range map[string]struct {
		file *fstest.MapFile
		want string
	}{
		"a pipe":      {&fstest.MapFile{Mode: fs.ModeNamedPipe}, "releases/x.json: not a regular file (p---------)"},
		"a device":    {&fstest.MapFile{Mode: fs.ModeDevice | fs.ModeCharDevice}, "releases/x.json: not a regular file (Dc---------)"},
		"a huge file": {&fstest.MapFile{Data: make([]byte, MaxDocumentBytes+1)}, fmt.Sprintf("releases/x.json: %d bytes, more than the %d it may have", MaxDocumentBytes+1, MaxDocumentBytes)},
	} {
		t.Run(name, func(t *testing.T) {
			bad := maps.Clone(fsys)
			bad["x.json"] = tc.file
			_, err := (&MetadataDir{Dir: "releases", Logger: discard, FS: bad}).Graph(context.Background())
			if err == nil || !strings.Contains(err.Error(), filepath.FromSlash(tc.want)) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		_, err := (&MetadataDir{Dir: "releases", Logger: discard, FS: fstest.MapFS{"README.md": {}}}).Graph(context.Background())
		if err == nil || !strings.Contains(err.Error(), "releases") {
			t.Errorf("error = %v, want one naming the empty source", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := (&MetadataDir{Dir: "releases", Logger: discard, FS: fsys}).Graph(ctx); err == nil {
			t.Error("Graph succeeded with a cancelled context")
		}
	})
	t.Run("conflicting releases", func(t *testing.T) {
		bad := maps.Clone(fsys)
		bad["dup.json"] = &fstest.MapFile{Data: []byte(doc(kind, `"version": "1.0.0"`, `"payload": "quay.io/r@sha256:other"`, amd64))}
		_, err := (&MetadataDir{Dir: "releases", Logger: discard, FS: bad}).Graph(context.Background())
		if err == nil || !strings.Contains(err.Error(), "dup.json") || !strings.Contains(err.Error(), "1.0.0-amd64.json") {
			t.Errorf("error = %v, want one naming both files", err)
		}
	})
}

// TestMetadataDirZeroLogger: a MetadataDir built as a literal, without a
// Logger, must still skip a multi shard instead of panicking.
func TestMetadataDirZeroLogger(t *testing.T) {
	fsys := fstest.MapFS{
		"1.0.0.json": {Data: []byte(metaDoc("1.0.0", "amd64"))},
		"shard.json": {Data: []byte(doc(kind, `"version": "1.2.0"`, payload, amd64, `"metadata": {"release.openshift.io/architecture": "multi"}`))},
	}
	g, err := (&MetadataDir{Dir: "releases", FS: fsys}).Graph(context.Background())
	if err != nil || g.Len() != 1 {
		t.Errorf("Graph = %v, %v; want the one non-shard release", g, err)
	}
}

func TestGraphFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "graph.json")
	if err := os.WriteFile(p, []byte(`{"nodes":[{"version":"1.0.0+amd64","payload":"p","metadata":{}},{"version":"0.9.0+amd64"}],"edges":[[1,0]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Parse("graph:"+p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 2 || g.EdgeCount() != 1 {
		t.Errorf("graph has %d nodes, %d edges; want 2, 1", g.Len(), g.EdgeCount())
	}
	if _, err := (&GraphFile{Path: filepath.Join(dir, "missing.json")}).Graph(context.Background()); err == nil {
		t.Error("reading a missing graph file succeeded")
	}
}
