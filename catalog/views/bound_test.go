package views

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/source"
)

// sizes renders c and returns the bytes of its files by kind ("" for the
// blob files), without keeping them.
func sizes(t testing.TB, c *Catalog) map[string]int64 {
	t.Helper()
	var mu sync.Mutex
	out := map[string]int64{}
	err := c.Render(context.Background(), 0, func(_ context.Context, _ int, f File) error {
		k := string(kindOf(c.Name, f.Path))
		mu.Lock()
		out[k] += int64(len(f.Data))
		out["total"] += int64(len(f.Data))
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// catalogBytes is a catalog's own bytes: its blobs, one a line, as
// all.jsonl holds them.
func catalogBytes(cfg *declcfg.DeclarativeConfig) int64 {
	var n int64
	for _, m := range cfg.Metas {
		n += int64(len(m.Blob)) + 1
	}
	return n
}

// longRange is a valid skipRange of at least n bytes covering every
// version 1.0.0 to 1.0.(bundles-1): clauses ">=1.0.i <1.0.i+1" joined by
// " || ", cycling, as a careless generator might write it.
func longRange(n, bundles int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(" || ")
		}
		k := i % bundles
		fmt.Fprintf(&b, ">=1.0.%d <1.0.%d", k, k+1)
	}
	return b.String()
}

// chainCatalog is package p with one channel of bundles 1.0.0 …
// 1.0.(n-1), each replacing the one before; skipRange(i) is entry i's
// skipRange ("" for none).
func chainCatalog(t testing.TB, n int, skipRange func(i int) string) *declcfg.DeclarativeConfig {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"schema":"olm.package","name":"p","defaultChannel":"stable"}` + "\n")
	b.WriteString(`{"schema":"olm.channel","name":"stable","package":"p","entries":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"p.v1.0.%d"`, i)
		if i > 0 {
			fmt.Fprintf(&b, `,"replaces":"p.v1.0.%d"`, i-1)
		}
		if r := skipRange(i); r != "" {
			fmt.Fprintf(&b, `,"skipRange":%q`, r)
		}
		b.WriteString("}")
	}
	b.WriteString("]}\n")
	for i := range n {
		fmt.Fprintf(&b, `{"schema":"olm.bundle","name":"p.v1.0.%d","package":"p","image":"quay.io/x/p@sha256:%064d","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.%d"}}]}`+"\n", i, i, i)
	}
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(b.String()), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestOutputBound: the bytes of a catalog's files are at most boundK ×
// the catalog's own bytes + boundC (docs/operators.md, "Size of the
// output"), next/ files included, on catalogs built to grow them (issue
// 24: a 285 KB catalog of 200 bundles and one 240 KB skipRange gave 287
// MB, 2.9 GB with 2,000 bundles; a 1,000-bundle replaces chain gave 55
// MB of next/ files, one where every skipRange covers every older
// bundle 46 MB, before next/ files listed at most model.FileListMax
// hops and candidates) and on the shared real catalog.
func TestOutputBound(t *testing.T) {
	const boundK, boundC = 40, 1 << 20
	cases := []struct {
		name string
		cfg  func(t testing.TB) *declcfg.DeclarativeConfig
	}{
		// The catalog: the head's skipRange, 240 KB, covers the
		// 199 bundles before it.
		{"one-long-skiprange-200", func(t testing.TB) *declcfg.DeclarativeConfig {
			r := longRange(240_000, 200)
			return chainCatalog(t, 200, func(i int) string {
				if i == 199 {
					return r
				}
				return ""
			})
		}},
		{"one-long-skiprange-2000", func(t testing.TB) *declcfg.DeclarativeConfig {
			r := longRange(240_000, 2000)
			return chainCatalog(t, 2000, func(i int) string {
				if i == 1999 {
					return r
				}
				return ""
			})
		}},
		// Every entry's short skipRange covers every bundle before it:
		// n²/2 skipRange edges from n short strings, and n-i OLM v1
		// candidates from bundle i.
		{"every-skiprange-covers-all-1000", func(t testing.TB) *declcfg.DeclarativeConfig {
			return chainCatalog(t, 1000, func(i int) string {
				if i == 0 {
					return ""
				}
				return fmt.Sprintf("<1.0.%d", i)
			})
		}},
		// A replaces chain: OLM v0's path to the head from bundle i has
		// n-1-i hops.
		{"replaces-chain-1000", func(t testing.TB) *declcfg.DeclarativeConfig {
			return chainCatalog(t, 1000, func(int) string { return "" })
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && strings.HasSuffix(tc.name, "-2000") {
				t.Skip("2,000 bundles: not with -short")
			}
			cfg := tc.cfg(t)
			c, err := New("bound", "file:catalog.json", source.Info{Kind: source.KindFile, Reference: "catalog.json"}, cfg, false)
			if err != nil {
				t.Fatal(err)
			}
			in := catalogBytes(cfg)
			s := sizes(t, c)
			t.Logf("catalog %d bytes → files %d bytes (%.1f×): channel graphs %d, package graphs %d, next files %d, blobs %d",
				in, s["total"], float64(s["total"])/float64(in), s["operator-channel-graph"], s["operator-package-graph"], s["operator-next"], s[""])
			if s["total"] > boundK*in+boundC {
				t.Errorf("files of %d bytes from a catalog of %d bytes: more than %d × + %d", s["total"], in, boundK, boundC)
			}
			if rest := s["total"] - s["operator-next"]; rest > boundK*in+boundC {
				t.Errorf("files but next/ of %d bytes from a catalog of %d bytes: more than %d × + %d", rest, in, boundK, boundC)
			}
		})
	}
	t.Run("shared", func(t *testing.T) {
		cfg, info := loadShared(t)
		c, err := New("community", "dir:"+sharedCatalog, info, cfg, false)
		if err != nil {
			t.Fatal(err)
		}
		in := catalogBytes(cfg)
		s := sizes(t, c)
		t.Logf("catalog %d bytes → files %d bytes (%.1f×): channel graphs %d, package graphs %d, next files %d, blobs %d",
			in, s["total"], float64(s["total"])/float64(in), s["operator-channel-graph"], s["operator-package-graph"], s["operator-next"], s[""])
		if s["total"] > boundK*in+boundC {
			t.Errorf("files of %d bytes from a catalog of %d bytes: more than %d × + %d", s["total"], in, boundK, boundC)
		}
	})
}
