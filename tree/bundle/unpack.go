package bundle

import (
	"context"
	"os"
	"path/filepath"
)

// Unpacked is a tree extracted into a private directory.
type Unpacked struct {
	// Dir is the tree, ready for site.Load.
	Dir     string
	Summary *Summary
	tmp     string
}

// Close removes the extracted tree, and whatever was made beside it in
// the private directory (such as a server's snapshot of it).
func (u *Unpacked) Close() error { return os.RemoveAll(u.tmp) }

// NewUnpacked makes a new private directory under parent (os.TempDir()
// if ""), named after pattern as os.MkdirTemp does, with an empty tree
// directory inside it, opened as root: the tree is a directory of its
// own, so that what is made beside it (a server's snapshot) goes when
// Close removes the private one. Nothing is left behind on failure.
func NewUnpacked(parent, pattern string) (*Unpacked, *os.Root, error) {
	tmp, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return nil, nil, err
	}
	u := &Unpacked{Dir: filepath.Join(tmp, "tree"), tmp: tmp}
	err = os.Mkdir(u.Dir, 0o755)
	var root *os.Root
	if err == nil {
		root, err = os.OpenRoot(u.Dir)
	}
	if err != nil {
		u.Close()
		return nil, nil, err
	}
	return u, root, nil
}

// Unpack verifies the bundle at file as Verify does and extracts it into
// a new directory under parent (os.TempDir() if ""), readable by the
// current user only. Entries are written through an os.Root, only as the
// regular files and hard links index.json lists, within lim; on any
// problem nothing is left behind and the error is an *Error, as Verify's.
func Unpack(ctx context.Context, file, parent string, lim Limits) (*Unpacked, error) {
	u, root, err := NewUnpacked(parent, "upgraph-bundle-")
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if u.Summary, err = scanBundle(ctx, file, lim.withDefaults(), root); err != nil {
		u.Close()
		return nil, err
	}
	return u, nil
}
