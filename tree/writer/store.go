// Package writer stores a generation's files. A generation becomes visible
// to readers all at once, on Commit, or not at all.
package writer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/upgraph/upgraph/internal/dirswap"
)

// Store receives generations.
type Store interface {
	Begin(ctx context.Context) (Staging, error)
}

// Staging collects one generation's files.
type Staging interface {
	// Put stores a file; name is slash-separated and relative. data is not
	// retained after Put returns. Safe for concurrent use.
	Put(ctx context.Context, name string, data []byte) error
	// Commit makes the generation visible, replacing the previous one.
	Commit(ctx context.Context) error
	// Abort discards the generation; the previous one stays as it was.
	Abort() error
}

// DirStore keeps the current generation in directory Dir. A generation is
// built in a sibling directory and swapped in, so readers see either the
// old tree or the new one, never a mix, and a failed or interrupted run
// leaves the old tree as it was.
//
// Dir given as a symbolic link means the directory it points to: that
// directory is replaced (the staging tree is made beside it and swapped
// with it) and the link itself is left as it is, so a link an admin keeps
// pointing at the served tree keeps working. Dir must be new, empty, or
// hold a generation (its index.json): anything else is somebody's data,
// and is refused rather than replaced.
//
// After a swap the generation replaced is kept beside the output as the
// spare (SpareName), which the next run takes as its staging tree: the
// files the generations share are then already in place, and neither
// linked again nor removed (see spareTree). NoSpare removes it instead.
type DirStore struct {
	Dir string
	// NoSpare removes the replaced generation after the swap, and any
	// spare an earlier run kept, instead of keeping it for the next run.
	// The spare costs the disk space of the files that differ between
	// the last two generations (the others are links to the served
	// tree's) and one directory beside the output.
	NoSpare bool
	// Trace, when set, is called at each step of a generation's life
	// (the Phase constants), for logs and for the crash tests, which
	// stop the process at each one.
	Trace func(Phase)
}

// Phase names a step of DirStore's commit protocol.
type Phase string

const (
	// PhaseStaged: the staging directory exists, nothing written yet.
	PhaseStaged Phase = "staged"
	// PhaseFlushing: every file is written; the file system flush starts.
	PhaseFlushing Phase = "flushing"
	// PhaseSwapping: flushed; the swap with the output comes next.
	PhaseSwapping Phase = "swapping"
	// PhaseSwapped: the new tree is in place; the old one is being kept
	// as the spare, or removed.
	PhaseSwapped Phase = "swapped"
	// PhaseDone: the old tree is the spare, or removed.
	PhaseDone Phase = "done"
)

// Phases lists the phases in the order they happen.
var Phases = []Phase{PhaseStaged, PhaseFlushing, PhaseSwapping, PhaseSwapped, PhaseDone}

func (s DirStore) trace(p Phase) {
	if s.Trace != nil {
		s.Trace(p)
	}
}

// MarkerFile is the file every generation holds (its index.json): a
// non-empty directory without it is not a generation, and no store
// replaces it.
const MarkerFile = "index.json"

// ErrNotAGeneration is returned (wrapped, naming the directory) when Dir
// exists, is not empty and holds no generation.
var ErrNotAGeneration = errors.New("exists, is not empty and holds no upgraph generation (no index.json that upgraph wrote); refusing to replace it: name a new or empty directory, or one an earlier run wrote")

// Resolve returns the directory a DirStore for dir writes: dir made
// absolute, through any symbolic link, checked to be a place a generation
// may go. It is what Begin replaces, and what a caller should read the
// previous generation from.
func Resolve(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("output directory: empty path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("output %s: %w", dir, err)
	}
	if filepath.Dir(abs) == abs {
		return "", fmt.Errorf("output %s: the file system root cannot be replaced", dir)
	}
	if _, err := os.Lstat(abs); err == nil {
		// Through every link, on the path or at its end: the staging tree
		// goes beside the directory actually replaced.
		resolved, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", fmt.Errorf("output %s: %w", dir, err)
		}
		abs = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("output %s: %w", dir, err)
	} else if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(parent, filepath.Base(abs))
	}
	if filepath.Dir(abs) == abs {
		return "", fmt.Errorf("output %s: resolves to the file system root, which cannot be replaced", dir)
	}
	return abs, nil
}

// ErrNotADirectory is returned (wrapped) when the output exists and is not
// a directory.
var ErrNotADirectory = errors.New("exists and is not a directory")

// Inspect tells what dir, an output as Resolve returns it, holds: nothing
// yet or an empty directory (false, nil), a generation (true, nil), or
// what no store replaces: ErrNotAGeneration, ErrNotADirectory, or the
// error that kept it from being read.
func Inspect(dir string) (generation bool, err error) {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !st.IsDir() {
		return false, ErrNotADirectory
	}
	if HoldsGeneration(dir) {
		return true, nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return false, ErrNotAGeneration
	}
	if err != nil && !errors.Is(err, io.EOF) {
		// What cannot be listed cannot be known to be empty.
		return false, err
	}
	return false, nil
}

// replaceable checks that dir is new, empty or a generation; named is how
// messages name it.
func replaceable(dir, named string) error {
	_, err := Inspect(dir)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotAGeneration), errors.Is(err, ErrNotADirectory):
		return fmt.Errorf("output %s %w", named, err)
	}
	return fmt.Errorf("output %s: %w", named, err)
}

// GeneratorName is the "generator" every upgraph index.json names.
const GeneratorName = "upgraph"

// HoldsGeneration reports whether dir holds a generation upgraph wrote:
// its index.json is a regular file, a JSON object whose "generator" is
// upgraph's, whatever its format version. Another program's index.json
// (a web site's, say) does not make a directory replaceable.
func HoldsGeneration(dir string) bool {
	p := filepath.Join(dir, MarkerFile)
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	// The top-level keys are read in order and "generator" comes second
	// in upgraph's manifests, so the file table is never decoded.
	dec := json.NewDecoder(f)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		if key == "generator" {
			var name string
			return dec.Decode(&name) == nil && name == GeneratorName
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// Begin creates the staging directory next to Dir.
func (s DirStore) Begin(ctx context.Context) (Staging, error) {
	dir, err := Resolve(s.Dir)
	if err != nil {
		return nil, err
	}
	named := s.Dir
	if named != dir {
		named = fmt.Sprintf("%s (%s)", s.Dir, dir)
	}
	if err := replaceable(dir, named); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	prefix := filepath.Join(parent, "."+filepath.Base(dir)+".upgraph-")
	unlock, err := lock(prefix + "lock")
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", named, err)
	}
	// Checked again under the lock: another run may have just finished.
	if err := replaceable(dir, named); err != nil {
		unlock()
		return nil, err
	}
	// Holding the lock, any staging directory left is from a run that was
	// killed before it could clean up. It is only renamed now and removed
	// once the new generation is in place: a leftover of tens of thousands
	// of files took seconds to unlink, and unlinking it beside the run
	// slowed the run as much, on a disk.
	trash := moveAside(prefix)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := prefix + hex.EncodeToString(rnd[:])
	spare, trash := s.takeSpare(prefix, tmp, trash)
	if spare == nil {
		if err := os.Mkdir(tmp, 0o755); err != nil {
			removeAll(trash)
			unlock()
			return nil, fmt.Errorf("output: %w", err)
		}
	}
	s.trace(PhaseStaged)
	return &dirStaging{treeFiles: treeFiles{root: tmp, previous: openPrevious(dir), previousDir: dir, handles: newHandleBudget(), spare: spare},
		store: s, final: dir, tmp: tmp, spareName: prefix + spareSuffix, unlock: unlock, trash: trash}, nil
}

// spareSuffix ends the spare's name, after the output's prefix: it
// matches neither moveAside's staging names (hexadecimal) nor its trash.
const spareSuffix = "spare"

// SpareName is the spare a DirStore for the output dir (as Resolve
// returns it) keeps beside it.
func SpareName(dir string) string {
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".upgraph-"+spareSuffix)
}

// takeSpare renames the spare, if one may be used, to tmp, the run's
// staging tree, and reads it; it returns nil when the staging tree is to
// be made empty. Only a directory this user owns, on the output's file
// system, is used: anything else under the spare's name (a symbolic link,
// a file) is moved to the trash, never followed, as is the spare when
// the store keeps none, or one that cannot be read.
func (s DirStore) takeSpare(prefix, tmp string, trash []string) (*spareTree, []string) {
	name := prefix + spareSuffix
	st, err := os.Lstat(name)
	if err != nil {
		return nil, trash
	}
	toTrash := func(p string) []string {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		t := prefix + "trash-" + hex.EncodeToString(rnd[:])
		if os.Rename(p, t) == nil {
			return append(trash, t)
		}
		return trash
	}
	if s.NoSpare || !spareSupported || !st.Mode().IsDir() {
		return nil, toTrash(name)
	}
	if !ownedHere(st, filepath.Dir(prefix)) {
		return nil, trash // somebody else's: left alone
	}
	if os.Rename(name, tmp) != nil {
		return nil, trash
	}
	spare, err := readSpare(tmp)
	if err != nil {
		return nil, toTrash(tmp)
	}
	return spare, trash
}

// moveAside renames the staging directories of killed runs to trash
// names, and returns them with the trash earlier runs left. A trash
// directory is never a staging directory again, so a run killed while
// removing it leaves it to the next run's trash.
func moveAside(prefix string) []string {
	stale, _ := filepath.Glob(prefix + "[0-9a-f]*")
	trash, _ := filepath.Glob(prefix + "trash-*")
	for _, p := range stale {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		t := prefix + "trash-" + hex.EncodeToString(rnd[:])
		if os.Rename(p, t) == nil {
			trash = append(trash, t)
		}
	}
	return trash
}

// removeAll removes trees, ignoring errors: what is left is tried again
// by the next run.
func removeAll(trees []string) {
	for _, t := range trees {
		_ = removeTree(t)
	}
}

type dirStaging struct {
	treeFiles
	store      DirStore
	final, tmp string
	// spareName is where the replaced generation is kept.
	spareName string
	unlock    func()
	// trash holds killed runs' staging trees, removed after the swap.
	trash []string
}

// Linker is implemented by stagings that can store a file as another name
// for a file already put, without its bytes.
type Linker interface {
	Link(ctx context.Context, existing, name string) error
}

// Reuser is a Staging that carries a file over from the generation it
// replaces when that one holds exactly the same bytes under the same
// name (as Put does), and can be asked to do only that: a file carried
// over keeps its modification time, which a hard link to another file
// of the same bytes would replace.
type Reuser interface {
	// Reuse links name from the previous generation when it holds
	// exactly data there, and reports whether it did.
	Reuse(ctx context.Context, name string, data []byte) (bool, error)
}

// Reuse is Put's carrying over, alone.
func (d *treeFiles) Reuse(ctx context.Context, name string, data []byte) (bool, error) {
	if d.previous == nil {
		return false, nil
	}
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return false, err
	}
	return d.previous.reuse(dir, base, data), nil
}

// treeFiles writes a tree's files under root, for both stores.
type treeFiles struct {
	root string
	// previous, when set, is the tree this one replaces: a file whose
	// bytes it already holds is linked from there instead of written.
	previous *previousTree
	// previousDir is where previous was opened.
	previousDir string
	// spare, when set, is what root held when the generation began (the
	// spare): its names are settled as they are put, and those left
	// removed at Commit.
	spare   *spareTree
	counts  linkCounts
	dirs    sync.Map // slash-separated relative path → *treeDir, created
	handles *handleBudget
	// written counts the files written (created with their bytes), not
	// linked.
	written atomic.Int64
}

// WriteCounter is implemented by stagings that count the files they
// wrote with their bytes, as opposed to those they linked (to the
// previous generation or to another file of this one).
type WriteCounter interface {
	FilesWritten() int
}

func (d *treeFiles) FilesWritten() int { return int(d.written.Load()) }

// linkCounts counts a tree's names by how they were made.
type linkCounts struct {
	// linked: hard links made (from the previous generation, or to a
	// file of this one).
	linked atomic.Int64
	// kept: names of the spare kept as they were, the inode wanted.
	kept atomic.Int64
}

// addLinked and addKept count on c, when there is one.
func (c *linkCounts) addLinked() {
	if c != nil {
		c.linked.Add(1)
	}
}

func (c *linkCounts) addKept() {
	if c != nil {
		c.kept.Add(1)
	}
}

// handleBudget bounds the directory handles a tree keeps open: a tree can
// hold thousands of directories (one per signed release), and descriptors
// are limited. Directories beyond it are reached by path.
type handleBudget struct{ left atomic.Int64 }

func newHandleBudget() *handleBudget {
	b := &handleBudget{}
	b.left.Store(dirHandleLimit())
	return b
}

// take reports whether one more handle may be opened.
func (b *handleBudget) take() bool {
	if b.left.Add(-1) >= 0 {
		return true
	}
	b.left.Add(1)
	return false
}

// give returns a handle that was not opened after all.
func (b *handleBudget) give() { b.left.Add(1) }

func (d *treeFiles) Put(ctx context.Context, name string, data []byte) error {
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return err
	}
	if d.previous != nil && d.previous.reuse(dir, base, data) {
		return nil
	}
	return d.create(dir, base, data)
}

// create writes base in dir anew: whatever the spare held under the name
// is removed first, and the file is created new (O_EXCL), so that no
// file of the previous tree or of the spare (a hard link to the served
// tree's file, or to serve's snapshots') is written through.
func (d *treeFiles) create(dir *treeDir, base string, data []byte) error {
	if _, err := dir.settle(base, 0); err != nil {
		return err
	}
	if err := dir.create(base, data); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	dir.record(base, 0)
	d.written.Add(1)
	return nil
}

// Link hard-links name to existing: identical graphs (the same release
// with the same targets in several channels) take their space and write
// time once.
func (d *treeFiles) Link(ctx context.Context, existing, name string) error {
	src, srcBase, err := d.dir(ctx, existing)
	if err != nil {
		return err
	}
	dst, base, err := d.dir(ctx, name)
	if err != nil {
		return err
	}
	if kept, err := keepLink(src, srcBase, dst, base); kept || err != nil {
		return err
	}
	if err := link(src, srcBase, dst, base); err != nil {
		// File systems without hard links get a copy.
		data, rerr := os.ReadFile(filepath.Join(src.path, srcBase))
		if rerr != nil {
			return fmt.Errorf("output: %w", err)
		}
		return d.Put(ctx, name, data)
	}
	return nil
}

// dir validates name and returns its directory in the tree, created, and
// its base name.
func (d *treeFiles) dir(ctx context.Context, name string) (*treeDir, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if !fs.ValidPath(name) || name == "." || strings.Contains(name, `\`) {
		return nil, "", fmt.Errorf("output: invalid file name %q", name)
	}
	rel, base := path.Split(name)
	if td, ok := d.dirs.Load(rel); ok {
		return td.(*treeDir), base, nil
	}
	var spare *spareDir
	if d.spare != nil {
		var err error
		if spare, err = d.spare.claimDir(rel); err != nil {
			return nil, "", fmt.Errorf("output: %w", err)
		}
	}
	p := filepath.Join(d.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(p, 0o755); err != nil {
		return nil, "", fmt.Errorf("output: %w", err)
	}
	td := openTreeDir(rel, p, d.handles)
	td.spare, td.counts = spare, &d.counts
	if prev, loaded := d.dirs.LoadOrStore(rel, td); loaded {
		td.close()
		td = prev.(*treeDir)
	}
	return td, base, nil
}

// closeDirs releases the directories' handles.
func (d *treeFiles) closeDirs() {
	d.dirs.Range(func(k, td any) bool {
		td.(*treeDir).close()
		d.dirs.Delete(k)
		return true
	})
}

// ScratchStore writes a tree straight into Dir, which must not exist yet,
// for a tree that only lives until something else (a bundle) is made of
// it. Unlike DirStore it neither flushes the tree to disk (syncfs took
// most of a real-scale mirror's time on a busy disk) nor swaps it in, and
// Abort leaves the directory to the caller.
type ScratchStore struct{ Dir string }

func (s ScratchStore) Begin(ctx context.Context) (Staging, error) {
	if err := os.Mkdir(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return &scratch{treeFiles{root: s.Dir, handles: newHandleBudget()}}, nil
}

type scratch struct{ treeFiles }

func (s *scratch) Commit(ctx context.Context) error { s.closeDirs(); return ctx.Err() }
func (s *scratch) Abort() error                     { s.closeDirs(); return nil }

func (d *dirStaging) Commit(ctx context.Context) error {
	defer d.unlock()
	defer d.previous.close()
	d.closeDirs()
	// Every file of the generation is written by now: once the run
	// returns, a change to one of them gets a later time (waitClockPast).
	defer waitClockPast(time.Now())
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.spare != nil {
		// What the spare held that this generation does not.
		if err := d.spare.clean(); err != nil {
			return fmt.Errorf("output: clearing the spare in %s: %w", d.tmp, err)
		}
	}
	d.store.trace(PhaseFlushing)
	if err := dirswap.SyncFS(d.tmp); err != nil {
		return fmt.Errorf("output: flushing %s: %w", d.tmp, err)
	}
	d.store.trace(PhaseSwapping)
	if _, err := os.Lstat(d.final); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(d.tmp, d.final); err != nil {
			return fmt.Errorf("output: %w", err)
		}
		d.store.trace(PhaseSwapped)
		removeAll(d.trash)
		d.trash = nil
		d.store.trace(PhaseDone)
		return nil
	}
	if err := dirswap.Exchange(d.tmp, d.final, renameSwap); err != nil {
		return fmt.Errorf("output: swapping in %s: %w", d.final, err)
	}
	d.store.trace(PhaseSwapped)
	// tmp now holds the previous generation: the next run's spare, or
	// removed. The spare's name is free (taken at Begin, or moved to the
	// trash) unless somebody else's is there, which is left alone.
	var err error
	if d.store.NoSpare || !spareSupported {
		err = removeTree(d.tmp)
	} else if _, lerr := os.Lstat(d.spareName); !errors.Is(lerr, fs.ErrNotExist) || os.Rename(d.tmp, d.spareName) != nil {
		err = removeTree(d.tmp)
	}
	removeAll(d.trash)
	d.trash = nil
	d.store.trace(PhaseDone)
	return err
}

// Abort removes the staging tree, or, when it was the spare, makes it
// the spare again: a run that fails (inputs refused after the store was
// begun, generator.Start) neither pays for removing tens of thousands of
// names nor costs the next run its spare. What the run changed in it is
// no matter: no name of the spare is trusted (see spareTree).
func (d *dirStaging) Abort() error {
	defer d.unlock()
	defer d.previous.close()
	d.closeDirs()
	removeAll(d.trash)
	d.trash = nil
	if d.spare != nil && !d.store.NoSpare {
		if _, err := os.Lstat(d.spareName); errors.Is(err, fs.ErrNotExist) && os.Rename(d.tmp, d.spareName) == nil {
			return nil
		}
	}
	return removeTree(d.tmp)
}

// renameSwap is the portable fallback: the final path is briefly absent
// between the two renames, but never holds a partial tree.
func renameSwap(tmp, final string) error {
	old := tmp + ".old"
	if err := os.Rename(final, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Rename(old, final)
		return err
	}
	return os.Rename(old, tmp)
}
