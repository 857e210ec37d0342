package upstreamoracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Generated is every query the recorded data answers, with the catalog
// sets they run over, in the recorded order.
type Generated struct {
	Sets []CatalogSet
	V1   []V1Query
	V0   []V0Query
}

// SplitShared writes the split catalog set of the shared catalog
// (sharedDir, its FBC root) under splitDir and returns the shared
// catalog and each split catalog as loaded back.
func SplitShared(ctx context.Context, sharedDir, splitDir string) (*declcfg.DeclarativeConfig, map[string]*declcfg.DeclarativeConfig, error) {
	shared, err := declcfg.LoadFS(ctx, os.DirFS(sharedDir))
	if err != nil {
		return nil, nil, fmt.Errorf("shared catalog %s: %w", sharedDir, err)
	}
	split, err := Split(shared)
	if err != nil {
		return nil, nil, fmt.Errorf("splitting %s: %w", sharedDir, err)
	}
	if err := WriteSplit(splitDir, split); err != nil {
		return nil, nil, fmt.Errorf("writing the split catalogs under %s: %w", splitDir, err)
	}
	cats := map[string]*declcfg.DeclarativeConfig{}
	for _, ref := range SplitSet().Catalogs {
		dir := filepath.Join(splitDir, ref.Name)
		cfg, err := declcfg.LoadFS(ctx, os.DirFS(dir))
		if err != nil {
			return nil, nil, fmt.Errorf("split catalog %s: %w", dir, err)
		}
		cats[ref.Name] = cfg
	}
	return shared, cats, nil
}

// Generate builds every query: the shared catalog whole and split (written
// under splitDir), then the fixtures.
func Generate(ctx context.Context, sharedDir, splitDir string) (*Generated, error) {
	shared, split, err := SplitShared(ctx, sharedDir, splitDir)
	if err != nil {
		return nil, err
	}
	whole := map[string]*declcfg.DeclarativeConfig{WholeSet().Catalogs[0].Name: shared}
	g := &Generated{Sets: append([]CatalogSet{WholeSet(), SplitSet()}, append(V1FixtureSets(), V0FixtureSets()...)...)}
	g.V1 = append(V1Queries("whole", whole), V1Queries("split", split)...)
	g.V1 = append(g.V1, V1FixtureQueries()...)
	g.V0 = append(V0Queries("whole", whole), V0Queries("split", split)...)
	g.V0 = append(g.V0, V0FixtureQueries()...)
	return g, nil
}
