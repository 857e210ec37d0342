package tree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/ocitree"
)

// dirTree is a tree in a local directory, read through an os.Root so
// that no name in index.json reaches outside it.
type dirTree struct {
	opened
	dir string
}

func (t *dirTree) Dir() string { return t.dir }

// OpenDir opens the tree in dir.
func OpenDir(dir string) (Local, error) {
	return openDir(dir, dir, nil)
}

// openDir opens the tree in dir, named name in messages; cleanup, if not
// nil, removes what Open extracted (a bundle, an image) when it closes.
func openDir(name, dir string, cleanup func() error) (*dirTree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	index, err := root.ReadFile(manifest.FileName)
	var m *manifest.Manifest
	if err == nil {
		m, err = manifest.Parse(index)
	}
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifest.FileName), err)
	}
	return newDirTree(name, dir, root, index, m, cleanup), nil
}

func newDirTree(name, dir string, root *os.Root, index []byte, m *manifest.Manifest, cleanup func() error) *dirTree {
	read := func(_ context.Context, file string) ([]byte, error) {
		data, err := root.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return data, nil
	}
	closeFn := func() error {
		err := root.Close()
		if cleanup != nil {
			err = errors.Join(err, cleanup())
		}
		return err
	}
	return &dirTree{opened{name: name, index: index, m: m, read: read, close: closeFn}, dir}
}

// openBundle verifies and extracts a bundle into a private directory.
func openBundle(ctx context.Context, l Location, opts Options) (Tree, error) {
	u, err := bundle.Unpack(ctx, l.Path, opts.TempDir, bundle.Limits{})
	if err != nil {
		return nil, err
	}
	return openUnpacked(l, u)
}

// openOCI pulls an image from a registry or a layout, checking its layer,
// every file and index.json, into a private directory.
func openOCI(ctx context.Context, l Location, opts Options) (Tree, error) {
	o := ocitree.Options{Registry: opts.Registry, TempDir: opts.TempDir}
	var p *ocitree.Pulled
	var err error
	if l.Kind == KindOCI {
		p, err = ocitree.Pull(ctx, l.Ref, opts.TempDir, o)
	} else {
		p, err = ocitree.PullLayout(ctx, l.Path, l.Ref, opts.TempDir, o)
	}
	if err != nil {
		return nil, err
	}
	opts.Logger.Info("pulled tree", "from", l.Raw, "digest", p.Digest.String())
	return openUnpacked(l, p.Unpacked)
}

// openUnpacked opens the tree Open extracted into u, removed when it
// closes.
func openUnpacked(l Location, u *bundle.Unpacked) (Tree, error) {
	t, err := openDir(l.Raw, u.Dir, u.Close)
	if err != nil {
		u.Close()
		return nil, err
	}
	return t, nil
}
