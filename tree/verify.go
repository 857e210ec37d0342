package tree

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/tree/bundle"
)

// Verify checks the tree at location against its index.json: index.json
// consistent with itself, and every file it lists there with its size and
// sha256. A directory or a bundle gets bundle.Verify's stricter check
// (nothing unlisted, a bundle's checksum file); a remote tree is read
// whole, 8 files at a time. Any failure is a *bundle.Error naming every
// bad file.
func Verify(ctx context.Context, location string, opts Options) (Location, *bundle.Summary, error) {
	loc, err := ParseLocation(location)
	if err != nil {
		return loc, nil, err
	}
	if loc.Kind == KindDir || loc.Kind == KindBundle {
		sum, err := bundle.Verify(ctx, loc.Path, bundle.Limits{})
		return loc, sum, err
	}
	t, err := loc.Open(ctx, opts)
	if err != nil {
		return loc, nil, err
	}
	defer t.Close()
	m := t.Manifest()
	ps := bundle.ManifestProblems(m)
	names := slices.Sorted(maps.Keys(m.Files))
	var mu sync.Mutex
	err = parallel.Run(ctx, 8, len(names), func(ctx context.Context, _, i int) error {
		if _, err := t.ReadFile(ctx, names[i]); err != nil {
			mu.Lock()
			defer mu.Unlock()
			ps = append(ps, bundle.Problem{File: names[i], Reason: strings.TrimPrefix(err.Error(), t.String()+": ")})
		}
		return nil
	})
	if err != nil {
		return loc, nil, err
	}
	if err := bundle.Errors(location, ps); err != nil {
		return loc, nil, err
	}
	return loc, &bundle.Summary{Manifest: m}, nil
}
