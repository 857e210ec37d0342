package graphdata

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type entry struct {
	name string
	typ  byte
	body string
	link string
}

func tarGz(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Linkname: e.link}
		switch e.typ {
		case tar.TypeXGlobalHeader:
			// Only PAXRecords may be set; GitHub writes the commit here.
			h = &tar.Header{Typeflag: e.typ, PAXRecords: map[string]string{"comment": "0123456789abcdef"}}
		case tar.TypeReg:
			h.Size = int64(len(e.body))
		case tar.TypeDir:
			h.Mode = 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatalf("tar header %q: %v", e.name, err)
		}
		if e.typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sample is a small valid graph-data tree, by relative path; directories
// end in '/'.
var sample = []entry{
	{name: "version", typ: tar.TypeReg, body: "1.1.0\n"},
	{name: "LICENSE", typ: tar.TypeReg, body: "Apache-2.0\n"},
	{name: "raw/", typ: tar.TypeDir},
	{name: "raw/metadata.json", typ: tar.TypeReg, body: `{"4.1.0": {"io.openshift.upgrades.graph.previous.add": "4.1.0-rc.9"}}`},
	{name: "blocked-edges/", typ: tar.TypeDir},
	{name: "blocked-edges/4.1.1.yaml", typ: tar.TypeReg, body: "to: 4.1.1\nfrom: .*\n"},
	{name: "blocked-edges/OWNERS", typ: tar.TypeReg, body: "approvers: []\n"},
	{name: "channels/", typ: tar.TypeDir},
	{name: "channels/stable-4.1.yaml", typ: tar.TypeReg, body: "name: stable-4.1\nversions:\n- 4.1.0\n- 4.1.1\n"},
	{name: "channels/fast-4.1.yaml", typ: tar.TypeReg, body: "name: fast-4.1\nversions: [4.1.0]\n"},
	{name: "internal-channels/", typ: tar.TypeDir},
	{name: "internal-channels/version", typ: tar.TypeReg, body: "not the root\n"},
}

func prefixed(prefix string, es []entry) []entry {
	out := make([]entry, 0, len(es))
	for _, e := range es {
		e.name = prefix + e.name
		out = append(out, e)
	}
	return out
}

func checkSample(t *testing.T, fsys fs.FS) *GraphData {
	t.Helper()
	gd, err := Load(fsys, DefaultOptions())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if gd.SchemaVersion.String() != "1.1.0" || len(gd.Raw) != 1 || len(gd.Blocks) != 1 || len(gd.Channels) != 2 {
		t.Fatalf("loaded version %s, %d raw, %d blocks, %d channels; want 1.1.0, 1, 1, 2",
			gd.SchemaVersion, len(gd.Raw), len(gd.Blocks), len(gd.Channels))
	}
	return gd
}

func TestReadArchive(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []entry
	}{
		{"plain", sample},
		{"GitHub tarball", append([]entry{
			{name: "pax_global_header", typ: tar.TypeXGlobalHeader},
			{name: "openshift-cincinnati-graph-data-731d042/", typ: tar.TypeDir},
		}, prefixed("openshift-cincinnati-graph-data-731d042/", sample)...)},
		{"./ prefixed", append([]entry{{name: "./", typ: tar.TypeDir}}, prefixed("./", sample)...)},
		{"GitHub tarball without directory entries", prefixed("repo-abc/", slices.DeleteFunc(slices.Clone(sample), func(e entry) bool {
			return e.typ == tar.TypeDir && e.name != "channels/" && e.name != "blocked-edges/"
		}))},
		{"symlinks ignored", append(slices.Clone(sample),
			entry{name: "channels/evil.yaml", typ: tar.TypeSymlink, link: "../../../etc/passwd"},
			entry{name: "blocked-edges/link.yaml", typ: tar.TypeLink, link: "blocked-edges/4.1.1.yaml"},
			entry{name: "channels/abs.yaml", typ: tar.TypeSymlink, link: "/etc/passwd"},
		)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, err := ReadArchive(bytes.NewReader(tarGz(t, tc.entries)))
			if err != nil {
				t.Fatalf("ReadArchive: %v", err)
			}
			checkSample(t, fsys)
			if _, err := fs.Stat(fsys, "channels/evil.yaml"); err == nil {
				t.Error("a symlink entry is visible in the tree")
			}
			if _, err := fs.Stat(fsys, "blocked-edges/link.yaml"); err == nil {
				t.Error("a hard link entry is visible in the tree")
			}
		})
	}
}

func TestReadArchiveRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []entry
		want    string
	}{
		{"../ escape", append(slices.Clone(sample), entry{name: "../evil.yaml", typ: tar.TypeReg, body: "x"}), "escapes"},
		{"nested ../ escape", append(slices.Clone(sample), entry{name: "channels/../../evil.yaml", typ: tar.TypeReg, body: "x"}), "escapes"},
		{"a file below a file", append(slices.Clone(sample), entry{name: "LICENSE/evil.yaml", typ: tar.TypeReg, body: "x"}), `tar entry "LICENSE/evil.yaml" lies below "LICENSE", a file`},
		{"no version file", prefixed("repo/", slices.DeleteFunc(slices.Clone(sample), func(e entry) bool {
			return strings.HasSuffix(e.name, "version")
		})), "version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadArchive(bytes.NewReader(tarGz(t, tc.entries)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadArchive error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	t.Run("not gzip", func(t *testing.T) {
		if _, err := ReadArchive(strings.NewReader("version\n")); err == nil {
			t.Fatal("ReadArchive accepted plain text")
		}
	})
	t.Run("truncated", func(t *testing.T) {
		data := tarGz(t, sample)
		if _, err := ReadArchive(bytes.NewReader(data[:len(data)/2])); err == nil {
			t.Fatal("ReadArchive accepted a truncated archive")
		}
	})
}

// writeDir writes entries below dir.
func writeDir(t *testing.T, dir string, entries []entry) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(dir, filepath.FromSlash(e.name))
		if e.typ == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDigest(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "graph-data")
	writeDir(t, dir, sample)
	archive := filepath.Join(tmp, "graph-data.tar.gz")
	if err := os.WriteFile(archive, tarGz(t, prefixed("top/", sample)), 0o644); err != nil {
		t.Fatal(err)
	}
	digest := func(p string) string {
		t.Helper()
		fsys, err := Open(p)
		if err != nil {
			t.Fatalf("Open(%s): %v", p, err)
		}
		return checkSample(t, fsys).Digest
	}
	fromDir, fromTar := digest(dir), digest(archive)
	if !strings.HasPrefix(fromDir, "sha256:") || len(fromDir) != len("sha256:")+64 {
		t.Errorf("digest %q is not sha256:<64 hex>", fromDir)
	}
	if fromDir != fromTar {
		t.Errorf("digest from directory %s != from tarball %s", fromDir, fromTar)
	}
	if again := digest(dir); again != fromDir {
		t.Errorf("digest not stable: %s then %s", fromDir, again)
	}

	// One byte of a channel file changes the digest.
	changed := slices.Clone(sample)
	for i, e := range changed {
		if e.name == "channels/fast-4.1.yaml" {
			changed[i].body = strings.Replace(e.body, "4.1.0", "4.1.1", 1)
		}
	}
	dir2 := filepath.Join(tmp, "changed")
	writeDir(t, dir2, changed)
	if d := digest(dir2); d == fromDir {
		t.Error("digest unchanged after editing a channel file")
	}
	// Moving content to another file name changes it too.
	moved := slices.Clone(sample)
	for i, e := range moved {
		if e.name == "channels/fast-4.1.yaml" {
			moved[i].name = "channels/fast-4.1-renamed.yaml"
		}
	}
	dir3 := filepath.Join(tmp, "moved")
	writeDir(t, dir3, moved)
	if d := digest(dir3); d == fromDir {
		t.Error("digest unchanged after renaming a channel file")
	}
}

func TestOpenErrors(t *testing.T) {
	tmp := t.TempDir()
	if _, err := Open(filepath.Join(tmp, "missing")); err == nil {
		t.Error("Open of a missing path succeeded")
	}
	bad := filepath.Join(tmp, "bad.tar.gz")
	if err := os.WriteFile(bad, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Open(bad archive) = %v, want an error naming %s", err, bad)
	}
}

// TestReadArchiveRootWins: a "version" file at the archive root makes the
// root the tree, whatever other directories hold a "version" file.
func TestReadArchiveRootWins(t *testing.T) {
	for _, dir := range []string{"-", "+", "a", "zz"} {
		es := append(slices.Clone(sample), entry{name: dir + "/version", typ: tar.TypeReg, body: "9.9.9\n"})
		fsys, err := ReadArchive(bytes.NewReader(tarGz(t, es)))
		if err != nil {
			t.Fatal(err)
		}
		if b, err := fs.ReadFile(fsys, "version"); err != nil || string(b) != "1.1.0\n" {
			t.Errorf("with %s/version: root version file = %q, %v; want the archive root's", dir, b, err)
		}
	}
}

// TestReadTarEntryLimit: the files and directories kept are bounded,
// since each costs memory however little of the gzip stream its header
// takes; the entry over the bound is named.
func TestReadTarEntryLimit(t *testing.T) {
	read := func(entries []entry, max int) (fs.FS, error) {
		zr, err := gzip.NewReader(bytes.NewReader(tarGz(t, entries)))
		if err != nil {
			t.Fatal(err)
		}
		return readTar(tar.NewReader(zr), nil, max)
	}
	fsys, err := read(sample, len(sample))
	if err != nil {
		t.Fatalf("%d entries, bound %d: %v", len(sample), len(sample), err)
	}
	checkSample(t, fsys)
	// The same name twice is one entry kept.
	if _, err := read(append(slices.Clone(sample), sample[0]), len(sample)); err != nil {
		t.Fatalf("an entry twice: %v", err)
	}
	for _, extra := range []entry{
		{name: "signatures/", typ: tar.TypeDir},
		{name: "README.md", typ: tar.TypeReg, body: "x"},
	} {
		_, err = read(append(slices.Clone(sample), extra), len(sample))
		if want := fmt.Sprintf("tar entry %q: more than %d files and directories in the archive", extra.name, len(sample)); err == nil || err.Error() != want {
			t.Errorf("one entry more than the bound: %v, want %q", err, want)
		}
	}
}
