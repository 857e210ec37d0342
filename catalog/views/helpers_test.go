package views

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"sync"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/source"
)

// sharedCatalog is the real FBC root the tests read.
const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

// loadShared loads the shared catalog.
func loadShared(t testing.TB) (*declcfg.DeclarativeConfig, source.Info) {
	t.Helper()
	if _, err := os.Stat(sharedCatalog); err != nil {
		t.Skipf("shared catalog not available: %v", err)
	}
	src, err := source.Parse("dir:"+sharedCatalog, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, info, err := src.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cfg, info
}

// render renders c into a map of path → content, checking every digest
// a file comes with (File.SHA256) against its bytes.
func render(t testing.TB, c *Catalog, workers int) map[string][]byte {
	t.Helper()
	var mu sync.Mutex
	out := map[string][]byte{}
	err := c.Render(context.Background(), workers, func(_ context.Context, _ int, f File) error {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := out[f.Path]; dup {
			t.Errorf("%s rendered twice", f.Path)
		}
		out[f.Path] = f.Data
		if sum := sha256.Sum256(f.Data); f.SHA256 != "" && f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: SHA256 %s, its bytes' is %x", f.Path, f.SHA256, sum)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
