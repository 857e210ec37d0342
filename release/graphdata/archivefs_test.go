package graphdata

import (
	"archive/tar"
	"bytes"
	"fmt"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/upgraph/upgraph/internal/cputime"
)

// TestArchiveFS: the tree of an archive passes the io/fs conformance
// checks, at its root and stepped into a GitHub tarball's directory.
func TestArchiveFS(t *testing.T) {
	for name, entries := range map[string][]entry{
		"plain":          sample,
		"GitHub tarball": prefixed("repo-abc/", sample),
	} {
		t.Run(name, func(t *testing.T) {
			fsys, err := ReadArchive(bytes.NewReader(tarGz(t, entries)))
			if err != nil {
				t.Fatal(err)
			}
			if err := fstest.TestFS(fsys, "version", "LICENSE", "raw/metadata.json", "blocked-edges/4.1.1.yaml",
				"blocked-edges/OWNERS", "channels/stable-4.1.yaml", "channels/fast-4.1.yaml", "internal-channels/version"); err != nil {
				t.Fatal(err)
			}
			checkSample(t, fsys)
		})
	}
}

// TestReadArchiveManySignatureDirectories: loading an archive costs time
// linear in its entries. With fstest.MapFS, which lists a directory by
// scanning every file, 16,000 signature directories (a 170 KB archive)
// took about 10 s; they now take about 0.5 s.
func TestReadArchiveManySignatureDirectories(t *testing.T) {
	const n = 16000
	entries := slices.Clone(sample)
	for i := range n {
		entries = append(entries, entry{name: fmt.Sprintf("signatures/sha256/%064x/signature-1", i), typ: tar.TypeReg, body: "x"})
	}
	data := tarGz(t, entries)
	cpu := cputime.Process()
	start := time.Now()
	fsys, err := ReadArchive(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	gd := checkSample(t, fsys)
	if len(gd.Signatures) != n {
		t.Fatalf("%d signed releases, want %d", len(gd.Signatures), n)
	}
	used := cputime.Process() - cpu
	t.Logf("%d signature directories (%d bytes of archive): %v, %v CPU", n, len(data), time.Since(start), used)
	if limit := 4 * time.Second; used > limit {
		t.Fatalf("loading took %v of CPU, more than %v: quadratic in the directories?", used, limit)
	}
}
