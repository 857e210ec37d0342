// Package fbctest loads the file-based catalogs the catalog packages'
// tests share (the shared real catalog beside the repository, the
// hand-made catalogs of catalog/upgrade/testdata/catalogs), each once per
// test binary.
package fbctest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
)

type loadedCatalog struct {
	cfg *declcfg.DeclarativeConfig
	m   *model.Catalog
}

var (
	mu     sync.Mutex
	loaded = map[string]loadedCatalog{}
)

// Load reads the FBC directory dir and converts it (once per test binary
// and directory); tb fails when dir is missing or does not load.
func Load(tb testing.TB, dir string) (*declcfg.DeclarativeConfig, *model.Catalog) {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if c, ok := loaded[dir]; ok {
		return c.cfg, c.m
	}
	if _, err := os.Stat(dir); err != nil {
		tb.Fatalf("%v (the shared real catalog is cloned beside the repository)", err)
	}
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
	if err != nil {
		tb.Fatal(err)
	}
	c := loadedCatalog{cfg, model.Convert(cfg)}
	loaded[dir] = c
	return c.cfg, c.m
}
