package generator_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// Payload digests of demo releases (testdata/demo/releases).
const (
	d4150amd = "sha256:9cedff0b407ac2c5ac7a05df1f5a00613dc28f95e8c7685c7b464535b3fe0de0"
	d4160amd = "sha256:c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"
	d4160arm = "sha256:b313f8aeee24ffac41455b03a924177341c6c0ac93a5a1e6258763909cd8f677"
	dUnknown = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
)

func buildDemo(t *testing.T, releases, gd fs.FS, opts generator.BuildOptions) (*generator.Built, error) {
	t.Helper()
	opts.GraphData = graphdata.DefaultOptions()
	return generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: releases}, gd, opts)
}

// renderDemoTo renders b into a new directory and returns it with the
// manifest and what was logged.
func renderDemoTo(t *testing.T, b *generator.Built, opts generator.RenderOptions) (string, *manifest.Manifest, string, error) {
	t.Helper()
	var logs bytes.Buffer
	dir := filepath.Join(t.TempDir(), "tree")
	opts.Store = writer.DirStore{Dir: dir}
	opts.GeneratedAt = time.Unix(0, 0)
	opts.Workers = 2
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	m, err := generator.Render(context.Background(), b, opts)
	return dir, m, logs.String(), err
}

// signatureFiles reads every file under dir/signatures.
func signatureFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join(dir, "signatures"), func(p string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return fs.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sigPath(digest string, n int) string { return manifest.SignaturePath(digest, n) }

func sigs(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, v := range s {
		if v != "" {
			out[i] = []byte(v)
		}
	}
	return out
}

// TestRenderSignatures: signatures are published for releases the tree
// serves, cut where clusters stop reading, and listed in index.json.
func TestRenderSignatures(t *testing.T) {
	built, err := buildDemo(t, upgraph.DemoReleases(), upgraph.DemoGraphData(), generator.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("s", graphdata.MaxSignatureSize)
	eleven := sigs("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11")
	nine := map[string]string{}
	for n := 1; n <= 9; n++ {
		nine[sigPath(d4160amd, n)] = string(eleven[n-1])
	}
	for _, tc := range []struct {
		name  string
		sigs  map[string][][]byte
		opts  generator.RenderOptions
		want  map[string]string // every signature file of the tree
		warn  string
		fails string
	}{
		{name: "none", want: map[string]string{}},
		{name: "served releases only",
			sigs: map[string][][]byte{d4160amd: sigs("a1", "a2"), d4160arm: sigs("r1"), dUnknown: sigs("u1")},
			want: map[string]string{sigPath(d4160amd, 1): "a1", sigPath(d4160amd, 2): "a2", sigPath(d4160arm, 1): "r1"}},
		{name: "arch not rendered", opts: generator.RenderOptions{Arches: []string{"amd64"}},
			sigs: map[string][][]byte{d4160amd: sigs("a1"), d4160arm: sigs("r1")},
			want: map[string]string{sigPath(d4160amd, 1): "a1"}},
		{name: "channel not rendered", opts: generator.RenderOptions{Channels: regexp.MustCompile(`^stable-4\.15$`)},
			sigs: map[string][][]byte{d4160amd: sigs("a1"), d4150amd: sigs("o1")},
			want: map[string]string{sigPath(d4150amd, 1): "o1"}},
		{name: "gap", sigs: map[string][][]byte{d4160amd: sigs("a1", "", "a3")},
			want: map[string]string{sigPath(d4160amd, 1): "a1"}, warn: "missing=signature-2 dropped=1"},
		{name: "empty entry is a gap", sigs: map[string][][]byte{d4160amd: {[]byte("a1"), {}, []byte("a3")}},
			want: map[string]string{sigPath(d4160amd, 1): "a1"}, warn: "missing=signature-2"},
		{name: "signature-1 missing", sigs: map[string][][]byte{d4160amd: sigs("", "a2")},
			want: map[string]string{}, warn: "missing=signature-1"},
		{name: "over nine", sigs: map[string][][]byte{d4160amd: eleven},
			want: nine, warn: "signature-9 only; the rest are not published\" releases=4.16.0+amd64 digest=" + d4160amd + " dropped=2"},
		{name: "gap after nine", sigs: map[string][][]byte{d4160amd: append(eleven[:9:9], nil, []byte("11"))},
			want: nine, warn: "signature-9 only"},
		{name: "50 KiB", sigs: map[string][][]byte{d4160amd: sigs(big)},
			want: map[string]string{sigPath(d4160amd, 1): big}},
		{name: "over 50 KiB", sigs: map[string][][]byte{d4160amd: sigs("a1", big+"s")},
			fails: sigPath(d4160amd, 2) + " (release 4.16.0+amd64): 51201 bytes, over the 51200"},
		{name: "over 50 KiB, not served", sigs: map[string][][]byte{dUnknown: sigs(big + "s")}, want: map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := *built
			b.Signatures = tc.sigs
			dir, m, logs, err := renderDemoTo(t, &b, tc.opts)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Fatalf("Render: %v, want an error containing %q", err, tc.fails)
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("a failed render left %s behind (%v)", dir, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := signatureFiles(t, dir); !maps.Equal(got, tc.want) {
				t.Errorf("signature files %v, want %v", slicesKeys(got), slicesKeys(tc.want))
			}
			listed := 0
			for name, f := range m.Files {
				if !strings.HasPrefix(name, "signatures/") {
					continue
				}
				listed++
				if data, ok := tc.want[name]; !ok || f.SHA256 != manifest.SHA256([]byte(data)) || f.Size != int64(len(data)) {
					t.Errorf("index.json lists %s as %+v", name, f)
				}
			}
			if listed != len(tc.want) || m.Counts.Signatures != len(tc.want) || m.Counts.Files != len(m.Files)+1 {
				t.Errorf("index.json lists %d signatures, counts.signatures %d, counts.files %d of %d; want %d signatures",
					listed, m.Counts.Signatures, m.Counts.Files, len(m.Files)+1, len(tc.want))
			}
			if tc.warn != "" && !strings.Contains(logs, tc.warn) {
				t.Errorf("logs lack %q:\n%s", tc.warn, logs)
			}
			if tc.warn == "" && strings.Contains(logs, "level=WARN") {
				t.Errorf("unexpected warning:\n%s", logs)
			}
		})
	}
}

func slicesKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSignaturesOnlyAddFiles: with signatures the graph files are
// byte-identical, and without them index.json has no trace of the feature.
func TestSignaturesOnlyAddFiles(t *testing.T) {
	built, err := buildDemo(t, upgraph.DemoReleases(), upgraph.DemoGraphData(), generator.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plainDir, plain, _, err := renderDemoTo(t, built, generator.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	signed := *built
	signed.Signatures = map[string][][]byte{d4160amd: sigs("a1")}
	signedDir, withSigs, _, err := renderDemoTo(t, &signed, generator.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name := range plain.Files {
		a, errA := os.ReadFile(filepath.Join(plainDir, name))
		b, errB := os.ReadFile(filepath.Join(signedDir, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs with signatures (%v, %v)", name, errA, errB)
		}
	}
	if len(withSigs.Files) != len(plain.Files)+1 {
		t.Errorf("%d files with one signature, %d without", len(withSigs.Files), len(plain.Files))
	}
	index, err := os.ReadFile(filepath.Join(plainDir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(index, []byte(`"signatures`)) {
		t.Errorf("index.json of a tree without signatures mentions them:\n%s", index)
	}
	index, _ = os.ReadFile(filepath.Join(signedDir, manifest.FileName))
	if !bytes.Contains(index, []byte(`"distinctBytes":`)) || !bytes.Contains(index, []byte(`,"signatures":1},"graphs"`)) {
		t.Errorf("index.json counts lack signatures:1:\n%s", index)
	}
}

// mapFS copies fsys into a MapFS with files added.
func mapFS(t *testing.T, fsys fs.FS, extra map[string]string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range extra {
		out[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return out
}

// TestSignaturesByManifestRef: a release whose payload is a tag is signed
// under the manifestref digest its metadata records.
func TestSignaturesByManifestRef(t *testing.T) {
	releases := mapFS(t, upgraph.DemoReleases(), nil)
	f := releases["4.16.0+amd64.json"]
	f.Data = bytes.Replace(f.Data, []byte("ocp-release@"+d4160amd), []byte("ocp-release:4.16.0-x86_64"), 1)
	f.Data = bytes.Replace(f.Data, []byte(`"arch": "amd64"`), []byte(`"arch": "amd64", "manifestref": "`+d4160amd+`"`), 1)
	if bytes.Count(f.Data, []byte(d4160amd)) != 1 || !bytes.Contains(f.Data, []byte("manifestref")) {
		t.Fatalf("the demo release changed shape:\n%s", f.Data)
	}
	built, err := buildDemo(t, releases, upgraph.DemoGraphData(), generator.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	built.Signatures = map[string][][]byte{d4160amd: sigs("a1")}
	dir, _, _, err := renderDemoTo(t, built, generator.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := signatureFiles(t, dir); !maps.Equal(got, map[string]string{sigPath(d4160amd, 1): "a1"}) {
		t.Errorf("signature files %v, want signature-1 of the manifestref", got)
	}
}

// TestBuildSignatures: Build takes graph-data's signatures and those of
// BuildOptions; a conflict between them names both files.
func TestBuildSignatures(t *testing.T) {
	hex := strings.TrimPrefix(d4160amd, "sha256:")
	gdFile := "signatures/sha256/" + hex + "/signature-1"
	gd := mapFS(t, upgraph.DemoGraphData(), map[string]string{gdFile: "from graph-data"})
	extra := graphdata.Signatures{d4160amd: {{}, {File: "dir/signature-2", Data: []byte("from dir")}}}
	built, err := buildDemo(t, upgraph.DemoReleases(), gd, generator.BuildOptions{Signatures: extra})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{[]byte("from graph-data"), []byte("from dir")}
	if got := built.Signatures[d4160amd]; len(built.Signatures) != 1 || len(got) != 2 || !bytes.Equal(got[0], want[0]) || !bytes.Equal(got[1], want[1]) {
		t.Errorf("Built.Signatures = %q, want %s: %q", built.Signatures, d4160amd, want)
	}

	extra[d4160amd][0] = graphdata.Signature{File: "dir/signature-1", Data: []byte("other")}
	_, err = buildDemo(t, upgraph.DemoReleases(), gd, generator.BuildOptions{Signatures: extra})
	if err == nil || !strings.Contains(err.Error(), gdFile+" and dir/signature-1 are both signature-1 of "+d4160amd) {
		t.Errorf("conflicting signatures: %v, want an error naming both files", err)
	}
}

// TestAddSignatures: signatures added to a built graph (a mirrored one)
// fill its gaps and must not contradict it.
func TestAddSignatures(t *testing.T) {
	b := &generator.Built{Signatures: map[string][][]byte{d4160amd: sigs("a1", "", "a3")}}
	err := b.AddSignatures(graphdata.Signatures{
		d4160amd: {{File: "dir/a1", Data: []byte("a1")}, {File: "dir/a2", Data: []byte("a2")}},
		d4160arm: {{File: "dir/r1", Data: []byte("r1")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Signatures[d4160amd]; len(got) != 3 || string(got[1]) != "a2" || string(got[2]) != "a3" || string(b.Signatures[d4160arm][0]) != "r1" {
		t.Errorf("Signatures = %q", b.Signatures)
	}
	err = b.AddSignatures(graphdata.Signatures{d4160amd: {{}, {}, {File: "dir/a3", Data: []byte("other")}}})
	if err == nil || !strings.Contains(err.Error(), "dir/a3 differs from the signature-3 of "+d4160amd) {
		t.Errorf("conflict: %v", err)
	}
	if string(b.Signatures[d4160amd][2]) != "a3" {
		t.Error("a rejected signature replaced the one present")
	}
	empty := &generator.Built{}
	if err := empty.AddSignatures(nil); err != nil || empty.Signatures != nil {
		t.Errorf("AddSignatures(nil) = %v, Signatures %v", err, empty.Signatures)
	}
}
