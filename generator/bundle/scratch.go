package bundle

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/upgraph/upgraph/generator/writer"
)

// scratchStore receives a tree that only lives until it is packed into a
// bundle. Unlike writer.DirStore it neither flushes the tree to disk
// (syncfs took most of a real-scale mirror's time on a busy disk) nor
// swaps it in: the bundle is what must be durable, and atomicWrite
// flushes that. The caller removes the directory.
type scratchStore struct{ dir string }

func (s scratchStore) Begin(ctx context.Context) (writer.Staging, error) {
	if err := os.Mkdir(s.dir, 0o755); err != nil {
		return nil, err
	}
	return &scratch{dir: s.dir}, nil
}

type scratch struct {
	dir  string
	dirs sync.Map // directories made
}

func (s *scratch) Put(ctx context.Context, name string, data []byte) error {
	p, err := s.path(ctx, name)
	if err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// Link makes Render store identical graphs once, as in a real tree, so
// that the bundle's hard links mirror the tree's.
func (s *scratch) Link(ctx context.Context, existing, name string) error {
	src, err := s.path(ctx, existing)
	if err != nil {
		return err
	}
	p, err := s.path(ctx, name)
	if err != nil {
		return err
	}
	if err := os.Link(src, p); err != nil {
		data, rerr := os.ReadFile(src)
		if rerr != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	return nil
}

func (s *scratch) path(ctx context.Context, name string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if !fs.ValidPath(name) || strings.Contains(name, `\`) {
		return "", fmt.Errorf("invalid file name %q", name)
	}
	p := filepath.Join(s.dir, filepath.FromSlash(name))
	dir := filepath.Dir(p)
	if _, ok := s.dirs.Load(dir); !ok {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		s.dirs.Store(dir, true)
	}
	return p, nil
}

func (s *scratch) Commit(ctx context.Context) error { return ctx.Err() }
func (s *scratch) Abort() error                     { return nil }

var _ writer.Linker = (*scratch)(nil)
