package model

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/internal/cputime"
	"github.com/upgraph/upgraph/internal/fbctest"
)

// depChain is fbctest.ReplacesChain where every bundle of p requires
// package dep (olm.package.required, >=1.0.0), which has one bundle.
func depChain(tb testing.TB, n int) *Catalog {
	tb.Helper()
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(fbctest.ReplacesChainRequiring(n, "dep")), "catalog.json")
	if err != nil {
		tb.Fatal(err)
	}
	c := Convert(cfg)
	if !c.Valid() {
		tb.Fatalf("invalid test catalog: %v", c.Problems)
	}
	return c
}

// BenchmarkV0SetPathsChain computes every entry's next/ file view with
// OLM v0 resolving dependencies over a catalog set (BoundedViewInSets,
// what generate does for a --catalog-set tree) on one channel of n
// bundles each replacing the one before and each requiring package dep:
// OLM v0's path from bundle i has n-1-i hops. A fresh set and V0Paths
// per iteration. "walk" is ResolvePath walked whole per entry, then the
// cut (the builder before v0SetPaths); "memo" is BoundedViewInSets. It
// reports CPU time per channel.
func BenchmarkV0SetPathsChain(b *testing.B) {
	for _, way := range []string{"walk", "memo"} {
		for _, n := range []int{100, 200, 500, 1000, 2000, 4000} {
			b.Run(fmt.Sprintf("%s/%d", way, n), func(b *testing.B) {
				c := depChain(b, n)
				ch := c.Package("p").Channel("stable")
				b.ResetTimer()
				cpu0 := cputime.Process()
				for b.Loop() {
					s := NewV0Set([]V0CatalogMember{{Name: "cat", Catalog: c}})
					paths := ch.V0Paths()
					for _, e := range ch.Entries {
						var v InstalledView
						if way == "walk" {
							v = e.InstalledViewInSets(nil, s, "cat")
							v.Bounded(ch)
						} else {
							v = e.BoundedViewInSets(nil, s, "cat", paths)
						}
						if e.Name == "p.v1.0.0" && (v.OLMV0.PathToHeadTotal != n-1 || v.OLMV0.Error != "") {
							b.Fatalf("path of %d hops from the oldest bundle, want %d (%s)", v.OLMV0.PathToHeadTotal, n-1, v.OLMV0.Error)
						}
					}
				}
				reportCPU(b, cpu0)
			})
		}
	}
}
