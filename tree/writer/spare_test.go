//go:build linux

package writer

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// spareGen is a generation as the generator writes one: files (name →
// bytes) taken over from the previous tree when it lists them unchanged
// (LinkPrevious, checked against its index.json's time) or put, and
// duplicates linked to their owner (name → owner).
type spareGen struct {
	files map[string]string
	dups  map[string]string
}

// spareRun is what one run did.
type spareRun struct {
	linked, kept, written int64
}

// runSpare writes g into s as a regeneration does and commits it.
func runSpare(t *testing.T, s DirStore, g spareGen) spareRun {
	t.Helper()
	st := beginSpare(t, s, g)
	if err := st.Commit(context.Background()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return spareRun{linked: st.counts.linked.Load(), kept: st.counts.kept.Load(), written: st.written.Load()}
}

// beginSpare writes g into a staging of s, and returns it uncommitted.
func beginSpare(t *testing.T, s DirStore, g spareGen) *dirStaging {
	t.Helper()
	ctx := context.Background()
	var notAfter time.Time
	if st, err := os.Lstat(filepath.Join(s.Dir, MarkerFile)); err == nil {
		notAfter = st.ModTime()
	}
	staging, err := s.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	st := staging.(*dirStaging)
	names := slices.Sorted(maps.Keys(g.files))
	// index.json last, as the generator writes it: every file is older.
	names = slices.DeleteFunc(names, func(n string) bool { return n == MarkerFile })
	for _, name := range append(names, MarkerFile) {
		data, ok := g.files[name]
		if !ok {
			continue
		}
		if name != MarkerFile {
			linked, err := st.LinkPrevious(ctx, name, int64(len(data)), notAfter)
			if err != nil {
				t.Fatalf("LinkPrevious(%s): %v", name, err)
			}
			if linked {
				continue
			}
		}
		if err := st.Put(ctx, name, []byte(data)); err != nil {
			t.Fatalf("Put(%s): %v", name, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g.dups)) {
		if err := st.Link(ctx, g.dups[name], name); err != nil {
			t.Fatalf("Link(%s, %s): %v", g.dups[name], name, err)
		}
	}
	return st
}

// wantTree is the snapshot a fresh run of g writes: its files and
// directories, nothing else.
func wantTree(g spareGen) map[string]string {
	out := map[string]string{}
	add := func(name, data string) {
		out[name] = data
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			out[d+"/"] = ""
		}
	}
	for name, data := range g.files {
		add(name, data)
	}
	for name, owner := range g.dups {
		add(name, g.files[owner])
	}
	return out
}

func checkTree(t *testing.T, dir string, g spareGen) {
	t.Helper()
	got, want := snapshot(t, dir), wantTree(g)
	if !maps.Equal(got, want) {
		t.Fatalf("tree %s:\n%v\nwant (a fresh run's)\n%v", dir, got, want)
	}
	// Duplicates are links to their owner, as in a fresh run.
	for name, owner := range g.dups {
		if !os.SameFile(inode(t, filepath.Join(dir, name)), inode(t, filepath.Join(dir, owner))) {
			t.Errorf("%s is not a link to %s", name, owner)
		}
	}
}

var (
	spareA = spareGen{
		files: map[string]string{
			MarkerFile:                      `{"generator":"upgraph","n":1}`,
			"graph/amd64/stable-4.1.json":   "stable 4.1",
			"graph/amd64/stable-4.1/a.json": "version a",
			"graph/arm64/stable-4.1.json":   "arm stable",
			"signatures/x/1":                "sig",
			"gone/deep/file.json":           "leaves",
		},
		dups: map[string]string{"graph/amd64/stable-4.1/b.json": "graph/amd64/stable-4.1/a.json"},
	}
	spareB = spareGen{
		files: map[string]string{
			MarkerFile:                      `{"generator":"upgraph","n":2}`,
			"graph/amd64/stable-4.1.json":   "stable 4.1",
			"graph/amd64/stable-4.1/a.json": "version a",
			"graph/arm64/stable-4.1.json":   "arm stable, changed",
			"signatures/x/1":                "sig",
			"new.json":                      "new",
		},
		dups: map[string]string{"graph/amd64/stable-4.1/b.json": "graph/amd64/stable-4.1/a.json"},
	}
)

// TestSpareTakesOverWithoutLinks: once the spare holds the generation
// before the served one, a regeneration keeps every unchanged file (and
// duplicate) of it as the inode served, without a link, writes only what
// changed, removes what the generation no longer has, and swaps in
// exactly a fresh run's tree; the replaced tree is the next spare.
func TestSpareTakesOverWithoutLinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	runSpare(t, s, spareA)                        // no previous tree: every file written
	if r := runSpare(t, s, spareA); r.kept != 0 { // no spare yet: linked from the served tree
		t.Fatalf("second run kept %d names with no spare", r.kept)
	}
	if _, err := os.Lstat(SpareName(dir)); err != nil {
		t.Fatalf("no spare after a swap: %v", err)
	}
	served := map[string]os.FileInfo{}
	for name := range spareA.files {
		served[name] = inode(t, filepath.Join(dir, name))
	}
	r := runSpare(t, s, spareA)
	checkTree(t, dir, spareA)
	// index.json is rendered (Put: compared, kept as the spare has the
	// served inode); the rest is taken over and the duplicate linked.
	if r.linked != 0 || r.written != 0 || r.kept != int64(len(spareA.files)+len(spareA.dups)) {
		t.Errorf("unchanged regeneration over the spare: %+v, want every name kept, none linked or written", r)
	}
	for name, was := range served {
		if !os.SameFile(was, inode(t, filepath.Join(dir, name))) {
			t.Errorf("%s is not the inode served before", name)
		}
	}
	checkTree(t, SpareName(dir), spareA)

	// A regeneration with changes: the spare (spareA, sharing its inodes
	// with the served tree) becomes spareB.
	r = runSpare(t, s, spareB)
	checkTree(t, dir, spareB)
	checkTree(t, SpareName(dir), spareA) // the served tree, untouched, is the spare
	// index.json, the changed and the new file are written; the rest kept.
	if r.written != 3 || r.linked != 0 || r.kept != 4 {
		t.Errorf("regeneration with changes: %+v, want 3 written, 4 kept", r)
	}
	// And back: the spare now holds spareA, whose unclaimed names
	// (new.json) go, and whose gone/ directory comes back.
	runSpare(t, s, spareA)
	checkTree(t, dir, spareA)
	checkTree(t, SpareName(dir), spareB)
	runSpare(t, s, spareB)
	checkTree(t, dir, spareB)
	checkTree(t, SpareName(dir), spareA)
}

// TestSpareChangedInPlace: a file of the served tree changed in place
// (same size, later time) is shared with the spare, whose name for it must
// not be kept: the file is rendered again, as a new inode, and neither
// the served tree's file nor the spare's is written to.
func TestSpareChangedInPlace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	runSpare(t, s, spareA)
	runSpare(t, s, spareA)
	name := "graph/amd64/stable-4.1.json"
	p := filepath.Join(dir, name)
	before := inode(t, p)
	if err := os.WriteFile(p, []byte("STABLE 4.1"), 0o644); err != nil { // same size
		t.Fatal(err)
	}
	r := runSpare(t, s, spareA)
	checkTree(t, dir, spareA)
	if os.SameFile(before, inode(t, p)) {
		t.Errorf("%s changed in place was kept", name)
	}
	if r.written != 1 {
		t.Errorf("written %d files, want only %s", r.written, name)
	}
	// The changed inode is the one now in the spare (the replaced tree),
	// as it was: nothing wrote to it.
	if got, _ := os.ReadFile(filepath.Join(SpareName(dir), name)); string(got) != "STABLE 4.1" {
		t.Errorf("the replaced tree's %s holds %q", name, got)
	}
}

// TestSpareOddEntries: whatever else the spare holds (symbolic links
// where the generation needs files or directories, a FIFO, a file where
// a directory goes, a directory where a file goes, stray files) is
// removed, never followed nor written through.
func TestSpareOddEntries(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	s := DirStore{Dir: dir}
	runSpare(t, s, spareA)
	runSpare(t, s, spareA)
	outside := filepath.Join(root, "outside")
	if err := os.MkdirAll(filepath.Join(outside, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "victim.json")
	if err := os.WriteFile(victim, []byte("victim"), 0o644); err != nil {
		t.Fatal(err)
	}
	spare := SpareName(dir)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A symbolic link where a file is taken over, one where a file is
	// written, and one where a directory is needed.
	for _, name := range []string{"graph/amd64/stable-4.1.json", "new.json"} {
		_ = os.Remove(filepath.Join(spare, name))
		must(os.Symlink(victim, filepath.Join(spare, name)))
	}
	must(os.RemoveAll(filepath.Join(spare, "signatures")))
	must(os.Symlink(filepath.Join(outside, "dir"), filepath.Join(spare, "signatures")))
	must(syscall.Mkfifo(filepath.Join(spare, "graph", "fifo"), 0o644))
	// A file where a directory goes, a directory where a file goes.
	must(os.RemoveAll(filepath.Join(spare, "graph", "arm64")))
	must(os.WriteFile(filepath.Join(spare, "graph", "arm64"), []byte("not a dir"), 0o644))
	for _, name := range []string{"a.json", "b.json"} { // a file written, a duplicate
		must(os.Remove(filepath.Join(spare, "graph", "amd64", "stable-4.1", name)))
		must(os.MkdirAll(filepath.Join(spare, "graph", "amd64", "stable-4.1", name, "x"), 0o755))
	}
	must(os.WriteFile(filepath.Join(spare, "stray.json"), []byte("stray"), 0o644))

	runSpare(t, s, spareB)
	checkTree(t, dir, spareB)
	if got, _ := os.ReadFile(victim); string(got) != "victim" {
		t.Errorf("the file a spare's link pointed to was written: %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(outside, "dir")); len(entries) != 0 {
		t.Errorf("the directory a spare's link pointed to was written into: %v", entries)
	}
}

// TestSpareThatIsALink: a symbolic link under the spare's name is not
// followed: it is removed (the link, not what it points to), the run
// stages an empty tree, and the replaced generation becomes the spare.
func TestSpareThatIsALink(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	s := DirStore{Dir: dir}
	runSpare(t, s, spareA)
	elsewhere := filepath.Join(root, "elsewhere")
	if err := os.MkdirAll(filepath.Join(elsewhere, "graph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "graph", "keep.json"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, SpareName(dir)); err != nil {
		t.Fatal(err)
	}
	r := runSpare(t, s, spareB)
	checkTree(t, dir, spareB)
	if r.kept != 0 {
		t.Errorf("kept %d names through a spare that is a link", r.kept)
	}
	if got := snapshot(t, elsewhere); !maps.Equal(got, map[string]string{"graph/": "", "graph/keep.json": "keep"}) {
		t.Errorf("the directory the link pointed to changed: %v", got)
	}
	if st, err := os.Lstat(SpareName(dir)); err != nil || !st.IsDir() {
		t.Errorf("the spare after the run: %v, %v; want the replaced tree", st, err)
	}
	checkTree(t, SpareName(dir), spareA)
}

// TestSpareKilledRun: a run killed while it updates the spare (renamed
// to its staging tree) leaves the served tree whole; the next run moves
// the leftover aside, stages an empty tree and writes a fresh run's tree.
func TestSpareKilledRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	runSpare(t, s, spareA)
	runSpare(t, s, spareB)
	st := beginSpare(t, s, spareA)
	// Killed: neither committed nor aborted; the lock dies with it.
	st.previous.close()
	st.closeDirs()
	st.unlock()
	checkTree(t, dir, spareB)
	if _, err := os.Lstat(SpareName(dir)); err == nil {
		t.Errorf("the spare still has its name while a run used it")
	}
	r := runSpare(t, s, spareA)
	checkTree(t, dir, spareA)
	if r.kept != 0 {
		t.Errorf("kept %d names from a killed run's staging tree", r.kept)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{".out.upgraph-spare", "out"}) {
		t.Errorf("beside the output after the next run: %v", got)
	}
	checkTree(t, SpareName(dir), spareB)
}

// TestNoSpare: a store without the spare removes the one an earlier run
// kept and leaves nothing beside the output; the next run with the spare
// starts one again.
func TestNoSpare(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	runSpare(t, DirStore{Dir: dir}, spareA)
	runSpare(t, DirStore{Dir: dir}, spareB)
	if _, err := os.Lstat(SpareName(dir)); err != nil {
		t.Fatalf("no spare: %v", err)
	}
	r := runSpare(t, DirStore{Dir: dir, NoSpare: true}, spareA)
	checkTree(t, dir, spareA)
	if r.kept != 0 {
		t.Errorf("kept %d names without the spare", r.kept)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside the output without the spare: %v", got)
	}
	runSpare(t, DirStore{Dir: dir}, spareB)
	checkTree(t, SpareName(dir), spareA)
}

// TestSpareAbort: an aborted run over the spare leaves the served tree as
// it was and its staging tree, the spare it took (written to), as the
// spare again, from which the next run makes a fresh run's tree; an
// aborted run that had no spare, or whose store keeps none, leaves
// nothing but the output.
func TestSpareAbort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	runSpare(t, s, spareA)
	st := beginSpare(t, s, spareB) // no spare yet: a new staging tree
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, spareA)
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside the output after an abort without a spare: %v", got)
	}

	runSpare(t, s, spareB)
	st = beginSpare(t, s, spareA) // over the spare (spareA's tree)
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, spareB)
	if got := siblings(t, dir); !slices.Equal(got, []string{".out.upgraph-spare", "out"}) {
		t.Errorf("beside the output after an abort over the spare: %v", got)
	}
	checkTree(t, SpareName(dir), spareA) // as the aborted run left it
	if r := runSpare(t, s, spareA); r.kept == 0 {
		t.Errorf("the run after the abort kept no name of the spare: %+v", r)
	}
	checkTree(t, dir, spareA)
	checkTree(t, SpareName(dir), spareB)

	s.NoSpare = true
	st = beginSpare(t, s, spareB)
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, spareA)
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("beside the output after an abort with NoSpare: %v", got)
	}
}

// TestSpareConcurrent: names of the spare are settled from many
// goroutines at once (files of the same directories taken over, put and
// linked in parallel, as the generator does), and the tree is still a
// fresh run's; run with -race.
func TestSpareConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	gen := func(round int) spareGen {
		g := spareGen{files: map[string]string{MarkerFile: fmt.Sprintf(`{"generator":"upgraph","round":%d}`, round)}, dups: map[string]string{}}
		for i := range 400 {
			name := fmt.Sprintf("graph/d%d/f%d.json", i%8, i)
			data := fmt.Sprintf("file %d", i)
			if i%5 == round%5 {
				data += fmt.Sprintf(" changed in round %d", round)
			}
			g.files[name] = data
			if i%4 == 0 {
				g.dups[fmt.Sprintf("graph/d%d/dup%d.json", (i+1)%8, i)] = name
			}
		}
		return g
	}
	for round := range 5 {
		g := gen(round)
		ctx := context.Background()
		var notAfter time.Time
		if st, err := os.Lstat(filepath.Join(dir, MarkerFile)); err == nil {
			notAfter = st.ModTime()
		}
		staging, err := s.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		st := staging.(*dirStaging)
		names := slices.Sorted(maps.Keys(g.files))
		var wg sync.WaitGroup
		errs := make(chan error, len(names)+len(g.dups))
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < len(names); i += 8 {
					name := names[i]
					if name == MarkerFile {
						continue
					}
					data := g.files[name]
					if ok, err := st.LinkPrevious(ctx, name, int64(len(data)), notAfter); err != nil || ok {
						errs <- err
						continue
					}
					errs <- st.Put(ctx, name, []byte(data))
				}
			})
		}
		wg.Wait()
		dups := slices.Sorted(maps.Keys(g.dups))
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < len(dups); i += 8 {
					errs <- st.Link(ctx, g.dups[dups[i]], dups[i])
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Put(ctx, MarkerFile, []byte(g.files[MarkerFile])); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		checkTree(t, dir, g)
		if round >= 2 && st.counts.kept.Load() == 0 {
			t.Errorf("round %d kept nothing from the spare", round)
		}
	}
}

// TestSpareReadOnlyDirectory: a directory of the spare its user may not
// change (made read-only since) fails the spare, not the run: the run
// starts from an empty staging tree.
func TestSpareReadOnlyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	runSpare(t, s, spareA)
	runSpare(t, s, spareB)
	ro := filepath.Join(SpareName(dir), "graph", "amd64")
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Wherever it went (the trash, left when it cannot be removed).
		_ = filepath.WalkDir(filepath.Dir(dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	r := runSpare(t, s, spareB)
	checkTree(t, dir, spareB)
	if r.kept != 0 {
		t.Errorf("kept %d names from a spare with a read-only directory", r.kept)
	}
}
