package bundle

import (
	"archive/tar"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/bundletest"

	"github.com/upgraph/upgraph/tree/manifest"
)

const (
	perVersion = "graph/amd64/fast-4.16/4.16.0.json"
	removed    = "graph/arm64/stable-4.15/4.15.1.json"
)

// TestVerifyTree tampers with copies of a good tree (without hard links)
// and checks that Verify names exactly the bad files.
func TestVerifyTree(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		want   map[string]string // file → part of its problem
	}{{
		name:   "intact",
		tamper: func(*testing.T, string) {},
	}, {
		name: "byte changed, file removed, file added",
		tamper: func(t *testing.T, dir string) {
			flipByte(t, filepath.Join(dir, perVersion), 20)
			remove(t, filepath.Join(dir, removed))
			write(t, filepath.Join(dir, "graph/amd64/fast-4.16/9.9.9.json"), "{}")
		},
		want: map[string]string{
			perVersion:                         "does not match its sha256",
			removed:                            "missing",
			"graph/amd64/fast-4.16/9.9.9.json": "not listed in index.json",
		},
	}, {
		name:   "grown",
		tamper: func(t *testing.T, dir string) { appendTo(t, filepath.Join(dir, perVersion), " ") },
		want:   map[string]string{perVersion: "bytes, index.json says"},
	}, {
		name: "stray files anywhere",
		tamper: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ".DS_Store"), "")
			write(t, filepath.Join(dir, "signatures/README"), "")
		},
		want: map[string]string{".DS_Store": "not listed", "signatures/README": "not listed"},
	}, {
		name: "listed file replaced by a symlink to the same content",
		tamper: func(t *testing.T, dir string) {
			remove(t, filepath.Join(dir, perVersion))
			if err := os.Symlink("4.15.2.json", filepath.Join(dir, perVersion)); err != nil {
				t.Fatal(err)
			}
		},
		want: map[string]string{perVersion: "not a regular file"},
	}, {
		name: "counts do not add up",
		tamper: func(t *testing.T, dir string) {
			editIndex(t, dir, func(m *manifest.Manifest) { m.Counts.Files++ })
		},
		want: map[string]string{"index.json": "counts say"},
	}, {
		name: "a graph's version file is not listed",
		tamper: func(t *testing.T, dir string) {
			editIndex(t, dir, func(m *manifest.Manifest) {
				m.Counts.Bytes -= m.Files[perVersion].Size
				delete(m.Files, perVersion)
				m.Counts.Files--
			})
		},
		want: map[string]string{"index.json": "is not among the files", perVersion: "not listed in index.json"},
	}, {
		name:   "index.json is not JSON",
		tamper: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "index.json"), "{") },
		want:   map[string]string{"index.json": "unexpected end of JSON input"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "tree")
			bundletest.CopyTree(t, demoTree(t), dir)
			tc.tamper(t, dir)
			_, err := Verify(t.Context(), dir, Limits{})
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantProblems(t, err, tc.want)
		})
	}
}

// TestVerifyBundle rebuilds a good bundle with one thing changed and
// checks that Verify and Unpack both name the bad file, and that Unpack
// leaves nothing behind.
func TestVerifyBundle(t *testing.T) {
	work := t.TempDir()
	good := filepath.Join(work, "good.tar.gz")
	if _, err := Write(t.Context(), demoTree(t), good); err != nil {
		t.Fatal(err)
	}
	entries := bundletest.ReadEntries(t, good)
	// A file no hard link points to, so that changing it changes one name.
	var lone string
	for _, e := range entries {
		if e.Header.Typeflag == tar.TypeReg && strings.Count(e.Header.Name, "/") == 3 &&
			!slices.ContainsFunc(entries, func(o entry) bool { return o.Header.Linkname == e.Header.Name }) {
			lone = e.Header.Name
			break
		}
	}
	if lone == "" {
		t.Fatal("no per-version file without links in the demo bundle")
	}
	linked := entries[slices.IndexFunc(entries, func(e entry) bool { return e.Header.Typeflag == tar.TypeLink })]
	edit := func(f func([]entry) []entry) func() []entry {
		return func() []entry {
			es := make([]entry, len(entries))
			for i, e := range entries {
				es[i] = entry{Header: e.Header, Data: slices.Clone(e.Data)}
			}
			return f(es)
		}
	}
	at := func(es []entry, name string) int {
		return slices.IndexFunc(es, func(e entry) bool { return e.Header.Name == name })
	}
	tests := []struct {
		name    string
		entries func() []entry
		lim     Limits
		want    map[string]string
	}{{
		name:    "byte changed",
		entries: edit(func(es []entry) []entry { es[at(es, lone)].Data[20] ^= 1; return es }),
		want:    map[string]string{lone: "does not match its sha256"},
	}, {
		name:    "file removed",
		entries: edit(func(es []entry) []entry { return slices.Delete(es, at(es, lone), at(es, lone)+1) }),
		want:    map[string]string{lone: "missing from the bundle"},
	}, {
		name: "file added",
		entries: edit(func(es []entry) []entry {
			return append(es, entry{Header: tar.Header{Name: "graph/extra.json", Typeflag: tar.TypeReg, Mode: 0o644}, Data: []byte("{}")})
		}),
		want: map[string]string{"graph/extra.json": "not listed"},
	}, {
		name: "path traversal",
		entries: edit(func(es []entry) []entry {
			return append(es, entry{Header: tar.Header{Name: "../../escaped", Typeflag: tar.TypeReg, Mode: 0o644}, Data: []byte("x")})
		}),
		want: map[string]string{"../../escaped": "not a valid file name"},
	}, {
		name: "path traversal listed in index.json",
		entries: edit(func(es []entry) []entry {
			m, err := manifest.Parse(es[0].Data)
			if err != nil {
				t.Fatal(err)
			}
			m.Files["../../escaped"] = manifest.File{SHA256: manifest.SHA256([]byte("x")), Size: 1}
			m.Counts.Files++
			m.Counts.Bytes++
			if es[0].Data, err = m.Encode(); err != nil {
				t.Fatal(err)
			}
			return append(es, entry{Header: tar.Header{Name: "../../escaped", Typeflag: tar.TypeReg, Mode: 0o644}, Data: []byte("x")})
		}),
		want: map[string]string{"index.json": `lists "../../escaped"`, "../../escaped": "not a valid file name"},
	}, {
		name: "index.json twice",
		entries: edit(func(es []entry) []entry {
			return append(es, entry{Header: tar.Header{Name: "index.json", Typeflag: tar.TypeReg, Mode: 0o644}, Data: []byte("{}")})
		}),
		want: map[string]string{"index.json": "not a valid file name"},
	}, {
		name: "listed file as a symlink",
		entries: edit(func(es []entry) []entry {
			es[at(es, lone)] = entry{Header: tar.Header{Name: lone, Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, Data: nil}
			return es
		}),
		want: map[string]string{lone: "not a regular file"},
	}, {
		name: "hard link to a later or unknown entry",
		entries: edit(func(es []entry) []entry {
			es[at(es, linked.Header.Name)].Header.Linkname = "../outside"
			return es
		}),
		want: map[string]string{linked.Header.Name: "not an earlier file of the bundle"},
	}, {
		name:    "entry twice",
		entries: edit(func(es []entry) []entry { return append(es, es[at(es, lone)]) }),
		want:    map[string]string{lone: "appears twice"},
	}, {
		name: "index.json not first",
		entries: edit(func(es []entry) []entry {
			es[0], es[1] = es[1], es[0]
			return es
		}),
		want: map[string]string{"bundle.tar.gz": "not an upgraph bundle"},
	}, {
		name:    "index.json over the limit",
		entries: edit(func(es []entry) []entry { return es }),
		lim:     Limits{MaxIndexBytes: 100},
		want:    map[string]string{"bundle.tar.gz": "not an upgraph bundle"},
	}, {
		name:    "content over the limit",
		entries: edit(func(es []entry) []entry { return es }),
		lim:     Limits{MaxBytes: 1000},
		want:    map[string]string{"bundle.tar.gz": "exceeds the limit"},
	}, {
		// tar reads an unknown type's content through, as a regular
		// file's: it is charged as one.
		name: "content of an entry of unknown type over the limit",
		entries: edit(func(es []entry) []entry {
			return append(es, entry{Header: tar.Header{Name: "graph/extra", Typeflag: 'Z', Size: 1 << 20, Mode: 0o644}, Data: make([]byte, 1<<20)})
		}),
		lim:  Limits{MaxBytes: contentBytes(entries) + 1<<19},
		want: map[string]string{"graph/extra": "not listed in index.json", "bundle.tar.gz": "content exceeds the limit of"},
	}, {
		name: "entries beyond the limit",
		entries: edit(func(es []entry) []entry {
			for i := range 5 {
				es = append(es, entry{Header: tar.Header{Name: fmt.Sprintf("graph/extra-%d/", i), Typeflag: tar.TypeDir, Mode: 0o755}})
			}
			return es
		}),
		lim: Limits{MaxExtraEntries: 3},
		want: map[string]string{
			"graph/extra-0/": "not a valid file name", "graph/extra-1/": "not a valid file name", "graph/extra-2/": "not a valid file name",
			"bundle.tar.gz": "more than 3 entries beyond index.json and the 89 files it lists: not read further",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file := filepath.Join(dir, "bundle.tar.gz")
			bundletest.WriteEntries(t, file, tc.entries())
			_, err := Verify(t.Context(), file, tc.lim)
			wantProblems(t, err, tc.want)

			parent := filepath.Join(dir, "unpack")
			if err := os.Mkdir(parent, 0o755); err != nil {
				t.Fatal(err)
			}
			if u, err := Unpack(t.Context(), file, parent, tc.lim); err == nil {
				u.Close()
				t.Fatal("Unpack accepted the bundle")
			}
			// ../../escaped from the tree would land in parent too.
			if left, _ := os.ReadDir(parent); len(left) > 0 {
				t.Errorf("Unpack left %v behind", left)
			}
		})
	}
}

// contentBytes is the content of the regular entries of a bundle.
func contentBytes(es []entry) int64 {
	var n int64
	for _, e := range es {
		if e.Header.Typeflag == tar.TypeReg {
			n += int64(len(e.Data))
		}
	}
	return n
}

// TestVerifyChecksum checks that a bundle changed after it was written
// fails its checksum file, and that a damaged checksum file is reported.
func TestVerifyChecksum(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, file string)
		want   map[string]string
	}{{
		name: "repacked with one byte changed",
		tamper: func(t *testing.T, file string) {
			es := bundletest.ReadEntries(t, file)
			for i := range es {
				if es[i].Header.Name == "signatures/sha256="+demo4160amd64+"/signature-2" {
					es[i].Data[0] ^= 1
				}
			}
			bundletest.WriteEntries(t, file, es)
		},
		want: map[string]string{"b.tar.gz": "sha256 is", "signatures/sha256=" + demo4160amd64 + "/signature-2": "does not match"},
	}, {
		name:   "bytes appended",
		tamper: func(t *testing.T, file string) { appendTo(t, file, "\x00") },
		want:   map[string]string{"b.tar.gz": "sha256 is"},
	}, {
		name:   "gzip trailer changed (tar stops reading before it)",
		tamper: func(t *testing.T, file string) { flipByte(t, file, -3) },
		want:   map[string]string{"b.tar.gz": "sha256 is"},
	}, {
		name:   "checksum file for another file",
		tamper: func(t *testing.T, file string) { write(t, file+".sha256", strings.Repeat("0", 64)+"  other.tar.gz\n") },
		want:   map[string]string{"b.tar.gz.sha256": `no line "<sha256>  b.tar.gz"`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "b.tar.gz")
			if _, err := Write(t.Context(), demoTree(t), file); err != nil {
				t.Fatal(err)
			}
			tc.tamper(t, file)
			_, err := Verify(t.Context(), file, Limits{})
			wantProblems(t, err, tc.want)
		})
	}
}

func flipByte(t *testing.T, name string, at int) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if at < 0 {
		at += len(data)
	}
	data[at] ^= 0x20
	write(t, name, string(data))
}

func appendTo(t *testing.T, name, s string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, name, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, name string) {
	t.Helper()
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
}

func editIndex(t *testing.T, dir string, f func(*manifest.Manifest)) {
	t.Helper()
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	f(m)
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, manifest.FileName), string(data))
}

// TestVerifyTreeHardLinks changes a hard-linked file in place: every name
// of it serves the changed bytes, so every name is reported, although
// the file is read once.
func TestVerifyTreeHardLinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	m, err := generateTree(testSources()[0], dir)
	if err != nil {
		t.Fatal(err)
	}
	target, err := os.Stat(filepath.Join(dir, perVersion))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for name := range m.Files {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && os.SameFile(st, target) {
			want[name] = "does not match its sha256"
		}
	}
	if len(want) < 2 {
		t.Fatalf("%s has no hard links: %v", perVersion, want)
	}
	f, err := os.OpenFile(filepath.Join(dir, perVersion), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("X"), 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Verify(t.Context(), dir, Limits{})
	wantProblems(t, err, want)
}
