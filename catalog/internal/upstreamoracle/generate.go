package upstreamoracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

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
	return generateFrom(shared, split), nil
}

func generateFrom(shared *declcfg.DeclarativeConfig, split map[string]*declcfg.DeclarativeConfig) *Generated {
	whole := map[string]*declcfg.DeclarativeConfig{WholeSet().Catalogs[0].Name: shared}
	g := &Generated{Sets: append([]CatalogSet{WholeSet(), SplitSet()}, append(V1FixtureSets(), V0FixtureSets()...)...)}
	g.Sets = append(g.Sets, V0DependencyFixtureSets()...)
	g.Sets = append(g.Sets, RabbitSets()...)
	g.V1 = append(V1Queries("whole", whole), V1Queries("split", split)...)
	g.V1 = append(g.V1, V1SelfCertifiedQueries("whole", whole)...)
	g.V1 = append(g.V1, V1FixtureQueries()...)
	g.V0 = append(V0Queries("whole", whole), V0Queries("split", split)...)
	g.V0 = append(g.V0, V0DependencyPairQueries("whole", whole)...)
	g.V0 = append(g.V0, V0FixtureQueries()...)
	g.V0 = append(g.V0, V0DependencyFixtureQueries()...)
	g.V0 = append(g.V0, RabbitQueries(shared)...)
	return g
}

// Prepare is what a comparison test needs: the recorded data of dataDir,
// and the directories its catalog sources name, the split set written
// under splitDir (a temporary directory) from the shared catalog at
// sharedDir. It fails when the recording does not answer exactly the
// queries Generate builds today.
func Prepare(ctx context.Context, dataDir, sharedDir, splitDir string) (*Recorded, Dirs, error) {
	d := Dirs{Data: dataDir, Shared: sharedDir, Split: splitDir}
	rec, err := Load(dataDir)
	if err != nil {
		return nil, d, err
	}
	g, err := Generate(ctx, sharedDir, splitDir)
	if err != nil {
		return nil, d, err
	}
	if err := rec.Answers(g); err != nil {
		return nil, d, err
	}
	return rec, d, nil
}

// Answers reports whether rec answers exactly g's queries, in order.
func (rec *Recorded) Answers(g *Generated) error {
	if !reflect.DeepEqual(rec.Sets, g.Sets) {
		return fmt.Errorf("%s: the recorded catalog sets differ from today's", SetsFile)
	}
	if len(rec.V1) != len(g.V1) {
		return fmt.Errorf("%s: %d records, %d queries today", V1File, len(rec.V1), len(g.V1))
	}
	for i := range g.V1 {
		if !reflect.DeepEqual(rec.V1[i].V1Query, g.V1[i]) {
			return fmt.Errorf("%s line %d: query %q, today's is %q", V1File, i+1, rec.V1[i].ID, g.V1[i].ID)
		}
	}
	if len(rec.V0) != len(g.V0) {
		return fmt.Errorf("%s: %d records, %d queries today", V0File, len(rec.V0), len(g.V0))
	}
	for i := range g.V0 {
		if !reflect.DeepEqual(rec.V0[i].V0Query, g.V0[i]) {
			return fmt.Errorf("%s line %d: query %q, today's is %q", V0File, i+1, rec.V0[i].ID, g.V0[i].ID)
		}
	}
	return nil
}
