//go:build linux

package writer

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func inode(t *testing.T, p string) os.FileInfo {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestDirStoreReusesIdenticalFiles checks that a regeneration links the
// files the previous tree already holds byte for byte, and writes every
// other one: changed content of the same size, a file altered in place
// since it was written, and a symbolic link planted in the old tree.
func TestDirStoreReusesIdenticalFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	old := map[string]string{
		"index.json":          `{"generator":"upgraph"}`,
		"same.json":           "unchanged bytes",
		"graph/a/same.json":   "unchanged too",
		"graph/a/edited.json": "original",
		"graph/a/size.json":   "first",
		"graph/a/bad.json":    "good content",
		"graph/a/link.json":   "target bytes",
		"empty.json":          "",
	}
	commit(t, s, old)
	// Altered in place after being written: same size, other bytes.
	if err := os.WriteFile(filepath.Join(dir, "graph/a/bad.json"), []byte("BAD content!"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A symbolic link to a file with the wanted bytes, outside the tree.
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("target bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "graph/a/link.json")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	// A directory of the old tree replaced by a symbolic link to one
	// outside it, holding a file with the wanted bytes.
	outsideDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(outsideDir, "x.json"), []byte("in a linked dir"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outsideDir, filepath.Join(dir, "graph/c")); err != nil {
		t.Fatal(err)
	}
	// A FIFO where a file is expected: opening it must not block.
	if err := syscall.Mkfifo(filepath.Join(dir, "graph/a/fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	outsideFile := inode(t, filepath.Join(outsideDir, "x.json"))
	before := map[string]os.FileInfo{}
	for name := range old {
		before[name] = inode(t, filepath.Join(dir, name))
	}

	next := maps.Clone(old)
	next["graph/a/edited.json"] = "modified" // same length as "original"
	next["graph/a/size.json"] = "second, longer"
	next["graph/a/new.json"] = "new"
	next["graph/c/x.json"] = "in a linked dir"
	next["graph/a/fifo.json"] = "was a FIFO"
	st := generation(t, s, next)
	// Until Commit, the old tree is as it was, links included.
	if got, err := os.ReadFile(filepath.Join(dir, "graph/a/edited.json")); err != nil || string(got) != "original" {
		t.Fatalf("staging changed the live tree: %q, %v", got, err)
	}
	if err := st.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := files(t, snapshot(t, dir)); !maps.Equal(got, next) {
		t.Fatalf("tree after regeneration:\n%v\nwant\n%v", got, next)
	}
	for name, wantLinked := range map[string]bool{
		"same.json": true, "graph/a/same.json": true, "empty.json": true,
		"graph/a/edited.json": false, "graph/a/size.json": false, "graph/a/bad.json": false, "graph/a/link.json": false,
	} {
		after := inode(t, filepath.Join(dir, name))
		if !after.Mode().IsRegular() {
			t.Errorf("%s is %v, want a regular file", name, after.Mode())
		}
		if linked := os.SameFile(before[name], after); linked != wantLinked {
			t.Errorf("%s: reused the old file: %v, want %v", name, linked, wantLinked)
		}
	}
	if got := inode(t, filepath.Join(dir, "graph/c/x.json")); os.SameFile(got, outsideFile) {
		t.Error("a file outside the tree, reached through a linked directory, was linked in")
	}
	if st := inode(t, filepath.Join(dir, "graph/c")); !st.IsDir() {
		t.Errorf("graph/c is %v, want a directory", st.Mode())
	}
	if got, err := os.ReadFile(outside); err != nil || string(got) != "target bytes" {
		t.Errorf("the symbolic link's target changed: %q, %v", got, err)
	}
}

// TestDirStoreAbortKeepsReusedFiles checks that aborting a generation that
// linked old files leaves them (and their content) in the live tree.
func TestDirStoreAbortKeepsReusedFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	commit(t, s, gen1)
	before := snapshot(t, dir)
	if err := generation(t, s, gen1).Abort(); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); !maps.Equal(after, before) {
		t.Errorf("Abort changed the tree:\n%v\nwant\n%v", after, before)
	}
}

// TestReuseThroughProc checks the fallback for kernels that refuse
// linkat(AT_EMPTY_PATH): the compared file is linked through /proc.
func TestReuseThroughProc(t *testing.T) {
	old, next := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(old, "f.json"), []byte("same"), 0o644); err != nil {
		t.Fatal(err)
	}
	prev := openPrevious(old)
	defer prev.close()
	prev.procLinks.Store(true)
	dst := openTreeDir("", next, newHandleBudget())
	defer dst.close()
	if prev.reuse(dst, "f.json", []byte("other")) {
		t.Error("a file with other bytes was reused")
	}
	if !prev.reuse(dst, "f.json", []byte("same")) {
		t.Fatal("an identical file was not reused")
	}
	if !os.SameFile(inode(t, filepath.Join(old, "f.json")), inode(t, filepath.Join(next, "f.json"))) {
		t.Error("the reused file is not the old file")
	}
}

// openFDs counts the process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestDirStoreHandleBudget checks a tree with more directories than
// directory handles it may keep open: the files of the others are written
// and reused by path, every handle is released by Commit, and Abort after
// a failed Commit closes nothing twice.
func TestDirStoreHandleBudget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	want := map[string]string{"index.json": `{"generator":"upgraph"}`}
	for i := range 40 {
		want[filepath.ToSlash(filepath.Join("signatures", "d"+strconv.Itoa(i), "signature-1"))] = "sig " + strconv.Itoa(i)
	}
	regenerate := func() *dirStaging {
		st, err := s.Begin(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ds := st.(*dirStaging)
		ds.handles.left.Store(3)
		if ds.previous != nil {
			ds.previous.handles.left.Store(3)
		}
		for name, content := range want {
			if err := ds.Put(context.Background(), name, []byte(content)); err != nil {
				t.Fatal(err)
			}
		}
		return ds
	}
	before := openFDs(t)
	if err := regenerate().Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	old := map[string]os.FileInfo{}
	for name := range want {
		old[name] = inode(t, filepath.Join(dir, name))
	}
	if err := regenerate().Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := files(t, snapshot(t, dir)); !maps.Equal(got, want) {
		t.Fatalf("tree:\n%v\nwant\n%v", got, want)
	}
	for name := range want {
		if !os.SameFile(old[name], inode(t, filepath.Join(dir, name))) {
			t.Errorf("%s was written again, not reused", name)
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open after two generations, %d before", after, before)
	}

	// A Commit that fails, then Abort, as Render does.
	ds := regenerate()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ds.Commit(ctx); err == nil {
		t.Fatal("Commit with a cancelled context succeeded")
	}
	bystander, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer bystander.Close()
	if err := ds.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := bystander.WriteString("still open"); err != nil {
		t.Errorf("a descriptor opened between Commit and Abort was closed: %v", err)
	}
}

// TestOpenPreviousLinksWhatWasRead checks that a previous file opened and
// read is linked as that inode, even when its name was given to another
// file in between, and that a missing or non-regular file is not opened.
func TestOpenPreviousLinksWhatWasRead(t *testing.T) {
	old, next := t.TempDir(), t.TempDir()
	for name, data := range map[string]string{"a.json.gz": "read bytes", "b.json.gz": "other"} {
		if err := os.WriteFile(filepath.Join(old, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(old, "d.json.gz"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := &treeFiles{root: next, previous: openPrevious(old), previousDir: old, handles: newHandleBudget()}
	defer files.previous.close()
	defer files.closeDirs()
	ctx := context.Background()
	for _, name := range []string{"c.json.gz", "d.json.gz"} {
		if f, ok, err := files.OpenPrevious(ctx, name, nil); err != nil || ok {
			t.Errorf("%s: opened %v, %v", name, f, err)
		}
	}
	f, ok, err := files.OpenPrevious(ctx, "a.json.gz", make([]byte, 0, 64))
	if err != nil || !ok || string(f.Data) != "read bytes" {
		t.Fatalf("a.json.gz: %v %v %v", f, ok, err)
	}
	read := inode(t, filepath.Join(old, "a.json.gz"))
	// Another file takes the name before the link; the inode read lives
	// on under another name (an inode no name holds any more cannot be
	// linked: the copy is then made again).
	if err := os.Link(filepath.Join(old, "a.json.gz"), filepath.Join(old, "kept")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(old, "b.json.gz"), filepath.Join(old, "a.json.gz")); err != nil {
		t.Fatal(err)
	}
	if !f.Link() {
		t.Fatal("not linked")
	}
	f.Close()
	f.Close() // twice is harmless
	if f.Link() {
		t.Error("a closed file was linked")
	}
	if !os.SameFile(inode(t, filepath.Join(next, "a.json.gz")), read) {
		t.Error("the file linked is not the one read")
	}
	if got, _ := os.ReadFile(filepath.Join(next, "a.json.gz")); string(got) != "read bytes" {
		t.Errorf("linked file holds %q", got)
	}
}

// TestOpenPreviousSized checks that only a regular file of the size asked
// is opened and read, that it links the inode read, and that PutNew
// writes a new file even where the previous generation holds the same
// bytes.
func TestOpenPreviousSized(t *testing.T) {
	old, next := t.TempDir(), t.TempDir()
	for name, data := range map[string]string{"a.json": "same bytes", "b.json": "same bytes"} {
		if err := os.WriteFile(filepath.Join(old, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(old, "d.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.json", filepath.Join(old, "l.json")); err != nil {
		t.Fatal(err)
	}
	files := &treeFiles{root: next, previous: openPrevious(old), previousDir: old, handles: newHandleBudget()}
	defer files.previous.close()
	defer files.closeDirs()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		size int64
	}{{"a.json", 9}, {"a.json", 11}, {"a.json", -1}, {"c.json", 0}, {"d.json", 4096}, {"l.json", 10}} {
		if f, ok, err := files.OpenPreviousSized(ctx, c.name, c.size, nil); err != nil || ok {
			t.Errorf("%s of %d bytes: opened %v, %v", c.name, c.size, f, err)
		}
	}
	f, ok, err := files.OpenPreviousSized(ctx, "a.json", 10, make([]byte, 0, 4))
	if err != nil || !ok || string(f.Data) != "same bytes" {
		t.Fatalf("a.json: %v %v %v", f, ok, err)
	}
	if !f.Link() {
		t.Fatal("a.json not linked")
	}
	f.Close()
	if !os.SameFile(inode(t, filepath.Join(next, "a.json")), inode(t, filepath.Join(old, "a.json"))) {
		t.Error("a.json: not the previous file's inode")
	}
	if err := files.PutNew(ctx, "b.json", []byte("same bytes")); err != nil {
		t.Fatal(err)
	}
	if os.SameFile(inode(t, filepath.Join(next, "b.json")), inode(t, filepath.Join(old, "b.json"))) {
		t.Error("b.json: PutNew linked the previous file")
	}
	if got, _ := os.ReadFile(filepath.Join(next, "b.json")); string(got) != "same bytes" {
		t.Errorf("b.json holds %q", got)
	}
	if files.FilesWritten() != 1 {
		t.Errorf("%d files written, want 1", files.FilesWritten())
	}
}
