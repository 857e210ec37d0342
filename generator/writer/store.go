// Package writer stores a generation's files. A generation becomes visible
// to readers all at once, on Commit, or not at all.
package writer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
type DirStore struct{ Dir string }

// Begin creates the staging directory next to Dir.
func (s DirStore) Begin(ctx context.Context) (Staging, error) {
	dir := filepath.Clean(s.Dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("output %s exists and is not a directory", dir)
	}
	prefix := filepath.Join(parent, "."+filepath.Base(dir)+".upgraph-")
	unlock, err := lock(prefix + "lock")
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", dir, err)
	}
	// Holding the lock, any staging directory left is from a run that was
	// killed before it could clean up.
	if stale, _ := filepath.Glob(prefix + "[0-9a-f]*"); len(stale) > 0 {
		for _, p := range stale {
			_ = os.RemoveAll(p)
		}
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := prefix + hex.EncodeToString(rnd[:])
	if err := os.Mkdir(tmp, 0o755); err != nil {
		unlock()
		return nil, fmt.Errorf("output: %w", err)
	}
	return &dirStaging{treeFiles: treeFiles{root: tmp, previous: openPrevious(dir), handles: newHandleBudget()}, final: dir, tmp: tmp, unlock: unlock}, nil
}

type dirStaging struct {
	treeFiles
	final, tmp string
	unlock     func()
}

// Linker is implemented by stagings that can store a file as another name
// for a file already put, without its bytes.
type Linker interface {
	Link(ctx context.Context, existing, name string) error
}

// treeFiles writes a tree's files under root, for both stores.
type treeFiles struct {
	root string
	// previous, when set, is the tree this one replaces: a file whose
	// bytes it already holds is linked from there instead of written.
	previous *previousTree
	dirs     sync.Map // slash-separated relative path → *treeDir, created
	handles  *handleBudget
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
	// A new file only (O_EXCL): a name already in the tree may be a link
	// to a file of the previous tree, which must not be written through.
	if err := dir.create(base, data); err != nil {
		return fmt.Errorf("output: %w", err)
	}
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
	p := filepath.Join(d.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(p, 0o755); err != nil {
		return nil, "", fmt.Errorf("output: %w", err)
	}
	td := openTreeDir(rel, p, d.handles)
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
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := syncTree(d.tmp); err != nil {
		return fmt.Errorf("output: flushing %s: %w", d.tmp, err)
	}
	if _, err := os.Lstat(d.final); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(d.tmp, d.final); err != nil {
			return fmt.Errorf("output: %w", err)
		}
		return nil
	}
	if err := exchange(d.tmp, d.final); err != nil {
		return fmt.Errorf("output: swapping in %s: %w", d.final, err)
	}
	// tmp now holds the previous generation.
	return removeTree(d.tmp)
}

func (d *dirStaging) Abort() error {
	defer d.unlock()
	defer d.previous.close()
	d.closeDirs()
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
