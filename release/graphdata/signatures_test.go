package graphdata

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

const (
	hexA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	hexB = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	gdA  = "signatures/sha256/" + hexA + "/"
	gdB  = "signatures/sha256/" + hexB + "/"
)

// sig is a loaded signature, for comparisons.
func sig(file, data string) Signature { return Signature{File: file, Data: []byte(data)} }

// TestGraphDataSignatures: graph-data's signatures/ (schema 1.2.0 layout)
// is read when present, strictly in that layout.
func TestGraphDataSignatures(t *testing.T) {
	big := strings.Repeat("x", MaxSignatureSize)
	for _, tc := range []struct {
		name  string
		kv    []string
		want  Signatures
		warn  string // a file warned about
		fails string // lines the error must contain; "" for none
	}{
		{name: "none", want: nil},
		{name: "one", kv: []string{gdA + "signature-1", "s1"},
			want: Signatures{"sha256:" + hexA: {sig(gdA+"signature-1", "s1")}}},
		{name: "two releases", kv: []string{gdA + "signature-1", "a1", gdA + "signature-2", "a2", gdB + "signature-1", "b1"},
			want: Signatures{
				"sha256:" + hexA: {sig(gdA+"signature-1", "a1"), sig(gdA+"signature-2", "a2")},
				"sha256:" + hexB: {sig(gdB+"signature-1", "b1")},
			}},
		{name: "gap kept for the renderer to stop at", kv: []string{gdA + "signature-1", "a1", gdA + "signature-3", "a3"},
			want: Signatures{"sha256:" + hexA: {sig(gdA+"signature-1", "a1"), {}, sig(gdA+"signature-3", "a3")}}},
		{name: "over nine: warned, not read", kv: []string{gdA + "signature-9", "a9", gdA + "signature-10", "a10", gdA + "signature-123456789012345678901", "x"},
			want: Signatures{"sha256:" + hexA: {{}, {}, {}, {}, {}, {}, {}, {}, sig(gdA+"signature-9", "a9")}},
			warn: gdA + "signature-10"},
		{name: "exactly 50 KiB", kv: []string{gdA + "signature-1", big},
			want: Signatures{"sha256:" + hexA: {sig(gdA+"signature-1", big)}}},
		{name: "README skipped", kv: []string{"signatures/README.md", "# signatures", gdA + "signature-1", "a1"},
			want: Signatures{"sha256:" + hexA: {sig(gdA+"signature-1", "a1")}}, warn: "signatures/README.md"},
		{name: "OWNERS skipped", kv: []string{"signatures/sha256/OWNERS", "x"}, want: nil, warn: "signatures/sha256/OWNERS"},
		{name: "over 50 KiB", kv: []string{gdA + "signature-1", big + "x"}, fails: gdA + "signature-1: over 51200 bytes"},
		{name: "empty", kv: []string{gdA + "signature-1", ""}, fails: gdA + "signature-1: empty"},
		{name: "signature-0", kv: []string{gdA + "signature-0", "x"}, fails: gdA + "signature-0: not a servable signature"},
		{name: "leading zero", kv: []string{gdA + "signature-01", "x"}, fails: gdA + "signature-01"},
		{name: "not a number", kv: []string{gdA + "signature-x", "x"}, fails: gdA + "signature-x"},
		{name: "signature outside a digest", kv: []string{"signatures/sha256/signature-1", "x"}, fails: "signatures/sha256/signature-1"},
		{name: "upper-case digest", kv: []string{"signatures/sha256/" + strings.ToUpper(hexA) + "/signature-1", "x"},
			fails: "signatures/sha256/" + strings.ToUpper(hexA) + ": not a sha256 digest"},
		{name: "short digest", kv: []string{"signatures/sha256/0123/signature-1", "x"}, fails: "signatures/sha256/0123: not a sha256 digest"},
		{name: "other algorithm", kv: []string{"signatures/sha512/" + hexA + "/signature-1", "x"}, fails: "signatures/sha512: unexpected directory"},
		{name: "store layout is not graph-data's", kv: []string{"signatures/sha256=" + hexA + "/signature-1", "x"},
			fails: "signatures/sha256=" + hexA + ": unexpected directory"},
		{name: "directory in a digest", kv: []string{gdA + "old/signature-1", "x"}, fails: gdA + "old: unexpected directory"},
		{name: "every problem reported", kv: []string{gdA + "signature-0", "x", gdB + "signature-1", ""}, fails: gdA + "signature-0\n" + gdB + "signature-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gd, err := Load(files(tc.kv...), DefaultOptions())
			if tc.fails != "" {
				wantErr(t, err, strings.Split(tc.fails, "\n")...)
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if !reflect.DeepEqual(gd.Signatures, tc.want) {
				t.Errorf("Signatures = %v, want %v", gd.Signatures, tc.want)
			}
			var warned []string
			for _, w := range gd.Warnings {
				warned = append(warned, w.File)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(warned, " "), tc.warn) {
				t.Errorf("warnings %v, want one for %s", gd.Warnings, tc.warn)
			}
		})
	}
}

// TestSignatureStrayFiles: README-like files are stray graph-data files,
// skipped or failed by the same options as elsewhere.
func TestSignatureStrayFiles(t *testing.T) {
	fsys := files("signatures/README.md", "# hi", gdA+"OWNERS", "x")
	gd := mustLoad(t, fsys, DefaultOptions())
	checkWarned(t, gd, InvalidExtension, "signatures/README.md")
	checkWarned(t, gd, MissingExtension, gdA+"OWNERS")
	_, err := Load(fsys, noSkip())
	wantErr(t, err, "signatures/README.md", gdA+"OWNERS")
}

// TestSignaturesInDigest: signatures count towards the graph-data digest,
// and a tree without them keeps the digest it always had.
func TestSignaturesInDigest(t *testing.T) {
	base := mustLoad(t, files(), DefaultOptions()).Digest
	if d := mustLoad(t, files("signatures/README.md", "#"), DefaultOptions()).Digest; d != base {
		t.Error("a stray file under signatures/ changed the digest")
	}
	one := mustLoad(t, files(gdA+"signature-1", "a"), DefaultOptions()).Digest
	other := mustLoad(t, files(gdA+"signature-1", "b"), DefaultOptions()).Digest
	moved := mustLoad(t, files(gdB+"signature-1", "a"), DefaultOptions()).Digest
	if one == base || other == one || moved == one {
		t.Errorf("digests base %s, one %s, other content %s, other digest %s: want all different", base, one, other, moved)
	}
}

// TestLoadSignatures reads a --signatures directory in either layout.
func TestLoadSignatures(t *testing.T) {
	store := "sha256=" + hexA + "/"
	gdl := "sha256/" + hexA + "/"
	for _, tc := range []struct {
		name  string
		kv    []string
		want  Signatures
		fails string
	}{
		{name: "store layout", kv: []string{store + "signature-1", "a1", store + "signature-2", "a2"},
			want: Signatures{"sha256:" + hexA: {sig("sigs/"+store+"signature-1", "a1"), sig("sigs/"+store+"signature-2", "a2")}}},
		{name: "graph-data layout", kv: []string{gdl + "signature-1", "a1"},
			want: Signatures{"sha256:" + hexA: {sig("sigs/"+gdl+"signature-1", "a1")}}},
		{name: "both layouts, same bytes", kv: []string{store + "signature-1", "a1", gdl + "signature-1", "a1", gdl + "signature-2", "a2"},
			want: Signatures{"sha256:" + hexA: {sig("sigs/"+gdl+"signature-1", "a1"), sig("sigs/"+gdl+"signature-2", "a2")}}},
		{name: "both layouts, different bytes", kv: []string{store + "signature-1", "a1", gdl + "signature-1", "other"},
			fails: "sigs/" + gdl + "signature-1 and sigs/" + store + "signature-1 are both signature-1 of sha256:" + hexA + " but differ"},
		{name: "empty directory", want: nil},
		{name: "index.html skipped", kv: []string{"index.html", "<html>", store + "signature-1", "a1"},
			want: Signatures{"sha256:" + hexA: {sig("sigs/"+store+"signature-1", "a1")}}},
		{name: "bad store digest", kv: []string{"sha256=" + hexA[:63] + "/signature-1", "x"}, fails: "sigs/sha256=" + hexA[:63] + ": not a sha256 digest"},
		{name: "sha= is no store directory", kv: []string{"sha=" + hexA + "/signature-1", "x"}, fails: "sigs/sha=" + hexA + ": unexpected directory"},
		{name: "signature at the top", kv: []string{"signature-1", "x"}, fails: "sigs/signature-1: not a servable signature"},
		{name: "over 50 KiB", kv: []string{store + "signature-2", strings.Repeat("x", MaxSignatureSize+1)}, fails: "sigs/" + store + "signature-2: over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for i := 0; i+1 < len(tc.kv); i += 2 {
				fsys[tc.kv[i]] = &fstest.MapFile{Data: []byte(tc.kv[i+1])}
			}
			got, _, err := LoadSignatures(fsys, "sigs", DefaultOptions())
			if tc.fails != "" {
				wantErr(t, err, tc.fails)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLoadSignaturesLinks: a store mirrored with symbolic links reads the
// same as a copied one.
func TestLoadSignaturesLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "blobs", hexA)
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "signature-1"), []byte("a1"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(store, "sha256="+hexA)); err != nil {
		t.Skip("no symbolic links:", err)
	}
	got, _, err := LoadSignatures(os.DirFS(store), store, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := Signatures{"sha256:" + hexA: {sig(filepath.Join(store, "sha256="+hexA, "signature-1"), "a1")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestSignaturesMerge: graph-data and --signatures combine; a conflict
// names both files.
func TestSignaturesMerge(t *testing.T) {
	gd := Signatures{"sha256:" + hexA: {sig("signatures/a1", "a1"), {}, sig("signatures/a3", "a3")}}
	dir := Signatures{
		"sha256:" + hexA: {sig("dir/a1", "a1"), sig("dir/a2", "a2")},
		"sha256:" + hexB: {sig("dir/b1", "b1")},
	}
	got, err := gd.Merge(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Signatures{
		"sha256:" + hexA: {sig("signatures/a1", "a1"), sig("dir/a2", "a2"), sig("signatures/a3", "a3")},
		"sha256:" + hexB: {sig("dir/b1", "b1")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	if len(gd["sha256:"+hexA]) != 3 || gd["sha256:"+hexA][1].Data != nil {
		t.Error("Merge changed its receiver")
	}

	if got, err := Signatures(nil).Merge(nil); got != nil || err != nil {
		t.Errorf("nil.Merge(nil) = %v, %v; want nil, nil", got, err)
	}

	_, err = gd.Merge(Signatures{"sha256:" + hexA: {{}, {}, sig("dir/a3", "not a3")}})
	wantErr(t, err, "signatures/a3 and dir/a3 are both signature-3 of sha256:"+hexA+" but differ")
	var loadErr *Problem
	if errors.As(err, &loadErr) {
		t.Errorf("a conflict is no single-file Problem: %v", err)
	}
}

func TestSignaturesContents(t *testing.T) {
	s := Signatures{"sha256:" + hexA: {sig("f1", "a1"), {}, sig("f3", "a3")}}
	want := map[string][][]byte{"sha256:" + hexA: {[]byte("a1"), nil, []byte("a3")}}
	if got := s.Contents(); !reflect.DeepEqual(got, want) {
		t.Errorf("Contents = %q, want %q", got, want)
	}
	if got := Signatures(nil).Contents(); got != nil {
		t.Errorf("nil.Contents() = %v, want nil", got)
	}
}
