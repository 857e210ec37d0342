// Package bundletest holds what tests of trees and bundles do to them:
// copy a tree without its hard links, read and rewrite a bundle's tar
// entries, and tamper with one entry, as a damaged download or a hostile
// mirror would.
package bundletest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// CopyTree copies the directory src to dst without its hard links, so
// that changing one file changes only that file.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Entry is one tar entry of a bundle.
type Entry struct {
	Header tar.Header
	Data   []byte
}

// ReadEntries reads every entry of the gzip-compressed tar file.
func ReadEntries(t testing.TB, file string) []Entry {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []Entry
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Entry{*hdr, data})
	}
}

// WriteEntries writes entries to file as a gzip-compressed tar, each
// regular entry's size set to its data's.
func WriteEntries(t testing.TB, file string, entries []Entry) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := e.Header
		if hdr.Typeflag == tar.TypeReg {
			hdr.Size = int64(len(e.Data))
		}
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Tamper writes the bundle src to dst (which may be src) with the content
// of the entry victim replaced by edit(its content), every other entry as
// it was. A hard link to an earlier entry becomes a file of its own,
// edited from the content it linked to. There must be such an entry.
func Tamper(t testing.TB, src, dst, victim string, edit func([]byte) []byte) {
	t.Helper()
	entries := ReadEntries(t, src)
	content := map[string][]byte{}
	found := false
	for i := range entries {
		e := &entries[i]
		if e.Header.Typeflag == tar.TypeReg {
			content[e.Header.Name] = e.Data
		}
		if e.Header.Name != victim {
			continue
		}
		data := e.Data
		if e.Header.Typeflag == tar.TypeLink {
			data = content[e.Header.Linkname]
		}
		e.Header.Typeflag, e.Header.Linkname = tar.TypeReg, ""
		e.Data, found = edit(bytes.Clone(data)), true
	}
	if !found {
		t.Fatalf("%s: no entry %s", src, victim)
	}
	WriteEntries(t, dst, entries)
}

// FlipFirstByte is an edit for Tamper that keeps the size.
func FlipFirstByte(b []byte) []byte {
	b[0] ^= 0xff
	return b
}
