package tree

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Extract copies t into a new private directory under parent
// (os.TempDir() if ""), for a tree that must be local (a server reads its
// files directly): every file index.json lists, each read with t.ReadFile
// and so checked against its size and sha256, 8 at a time, and then
// index.json itself. Files with the same content are read once and
// hard-linked. The Local it returns removes the directory when closed
// (t is the caller's to close); on failure nothing is left behind. A
// signed tree's tuf/ is copied too (MetadataFiles).
func Extract(ctx context.Context, t Tree, parent string) (Local, error) {
	u, root, err := bundle.NewUnpacked(parent, "upgraph-tree-")
	if err != nil {
		return nil, err
	}
	if err := copyTree(ctx, t, root); err != nil {
		root.Close()
		return nil, errors.Join(err, u.Close())
	}
	return newDirTree(t.String(), u.Dir, root, t.Index(), t.Manifest(), u.Close), nil
}

// copyTree writes t's files into root, through which no name index.json
// gives reaches outside it.
func copyTree(ctx context.Context, t Tree, root *os.Root) error {
	m := t.Manifest()
	byContent := map[string][]string{}
	dirs := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(m.Files)) {
		byContent[m.Files[name].SHA256] = append(byContent[m.Files[name].SHA256], name)
		dirs[path.Dir(name)] = true
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	groups := slices.SortedFunc(maps.Values(byContent), func(a, b []string) int { return cmp.Compare(a[0], b[0]) })
	err := parallel.Run(ctx, 8, len(groups), func(ctx context.Context, _, i int) error {
		names := groups[i]
		data, err := t.ReadFile(ctx, names[0])
		if err != nil {
			return err
		}
		for j, name := range names {
			if j == 0 || root.Link(names[0], name) != nil {
				err = root.WriteFile(name, data, 0o644)
			}
			if err != nil {
				return fmt.Errorf("%s: writing %s: %w", t, name, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// A signed tree's TUF metadata, which index.json does not list,
	// before index.json: the copy is verified as the tree was.
	meta, err := MetadataFiles(ctx, t)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(meta)) {
		if err := root.MkdirAll(manifest.MetadataDir, 0o755); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		if err := root.WriteFile(name, meta[name], 0o644); err != nil {
			return fmt.Errorf("%s: writing %s: %w", t, name, err)
		}
	}
	return root.WriteFile(manifest.FileName, t.Index(), 0o644)
}
