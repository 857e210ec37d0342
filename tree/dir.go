package tree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/ocitree"
)

// dirTree is a tree in a local directory, read through an os.Root so
// that no name in index.json reaches outside it.
type dirTree struct {
	name, dir string
	root      *os.Root
	index     []byte
	m         *manifest.Manifest
	// cleanup removes what Open extracted (a bundle, an image).
	cleanup func() error
}

// OpenDir opens the tree in dir.
func OpenDir(dir string) (Local, error) {
	return openDir(dir, dir, nil)
}

func openDir(name, dir string, cleanup func() error) (*dirTree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	index, err := root.ReadFile(manifest.FileName)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifest.FileName), err)
	}
	m, err := manifest.Parse(index)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, manifest.FileName), err)
	}
	return &dirTree{name: name, dir: dir, root: root, index: index, m: m, cleanup: cleanup}, nil
}

func (t *dirTree) Manifest() *manifest.Manifest { return t.m }
func (t *dirTree) Index() []byte                { return t.index }
func (t *dirTree) String() string               { return t.name }
func (t *dirTree) Dir() string                  { return t.dir }

func (t *dirTree) ReadFile(_ context.Context, name string) ([]byte, error) {
	if _, ok := t.m.Files[name]; !ok {
		return nil, fmt.Errorf("%s: %s is not listed in %s", t.name, name, manifest.FileName)
	}
	data, err := t.root.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	if err := checkFile(t.m, name, data); err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return data, nil
}

func (t *dirTree) Close() error {
	err := t.root.Close()
	if t.cleanup != nil {
		err = errors.Join(err, t.cleanup())
	}
	return err
}

// openBundle verifies and extracts a bundle into a private directory.
func openBundle(ctx context.Context, l Location, opts Options) (Tree, error) {
	u, err := bundle.Unpack(ctx, l.Path, opts.TempDir, opts.Limits)
	if err != nil {
		return nil, err
	}
	t, err := openDir(l.Raw, u.Dir, u.Close)
	if err != nil {
		u.Close()
		return nil, err
	}
	return t, nil
}

// openOCI pulls an image from a registry or a layout, checking its layer,
// every file and index.json, into a private directory.
func openOCI(ctx context.Context, l Location, opts Options) (Tree, error) {
	o := ocitree.Options{Registry: opts.Registry, TempDir: opts.TempDir, Limits: opts.Limits}
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
	t, err := openDir(l.Raw, p.Dir, p.Close)
	if err != nil {
		p.Close()
		return nil, err
	}
	return t, nil
}
