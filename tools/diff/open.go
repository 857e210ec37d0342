package diff

import (
	"context"
	"fmt"

	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tree"
)

// OpenSides opens the two sides of a diff, OLD and NEW (specs), each
// checked as a location first and opened with opts; with verify (nil:
// none, as without --trust) each side's signed metadata is checked, which
// a graph endpoint does not carry. closeAll closes both; on an error,
// whatever was opened is closed already.
func OpenSides(ctx context.Context, specs [2]string, opts mirror.SourceOptions, verify func(context.Context, tree.Tree) error) (sides [2]*Source, closeAll func(), err error) {
	closeAll = func() {
		for _, s := range sides {
			if s != nil {
				s.Close()
			}
		}
	}
	for i, spec := range specs {
		what := []string{"OLD", "NEW"}[i]
		if err := tree.CheckLocation(what, spec, true); err != nil {
			closeAll()
			return sides, nil, err
		}
		if sides[i], err = mirror.OpenSource(ctx, spec, opts); err != nil {
			closeAll()
			return sides, nil, err
		}
		if verify == nil {
			continue
		}
		if !sides[i].IsTree() {
			closeAll()
			return sides, nil, fmt.Errorf("--trust: %s %s is a graph endpoint, which carries no TUF metadata to verify", what, spec)
		}
		if err := verify(ctx, sides[i].Tree); err != nil {
			closeAll()
			return sides, nil, err
		}
	}
	return sides, closeAll, nil
}
