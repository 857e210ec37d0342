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

// BenchmarkV0PathsReplacesChain computes every entry's next/ file view
// (InstalledView cut by Bounded) on one channel of n bundles each
// replacing the one before: OLM v0's path from bundle i has n-1-i hops,
// so the whole paths hold n²/2 hops in all. "walk" is ResolveV0's whole
// walk per entry, then the cut (the builder before V0Paths); "memo" is
// BoundedViewInSets with the channel's V0Paths (the builder now), built
// afresh in each iteration. It reports CPU time per channel.
func BenchmarkV0PathsReplacesChain(b *testing.B) {
	for _, way := range []string{"walk", "memo"} {
		for _, n := range []int{500, 1000, 2000, 4000} {
			b.Run(fmt.Sprintf("%s/%d", way, n), func(b *testing.B) {
				m := Convert(replacesChain(b, n))
				ch := m.Package("p").Channel("stable")
				b.ResetTimer()
				cpu0 := cputime.Process()
				for b.Loop() {
					paths := ch.V0Paths()
					for _, e := range ch.Entries {
						var v InstalledView
						if way == "walk" {
							v = e.InstalledView()
							v.Bounded(ch)
						} else {
							v = e.BoundedViewInSets(nil, nil, "", paths)
						}
						if e.Name == "p.v1.0.0" && v.OLMV0.PathToHeadTotal != n-1 {
							b.Fatalf("path of %d hops from the oldest bundle, want %d", v.OLMV0.PathToHeadTotal, n-1)
						}
					}
				}
				reportCPU(b, cpu0)
			})
		}
	}
}

// replacesChain is package p with one channel of bundles 1.0.0 …
// 1.0.(n-1), each replacing the one before.
func replacesChain(tb testing.TB, n int) *declcfg.DeclarativeConfig {
	tb.Helper()
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(fbctest.ReplacesChain(n, false)), "catalog.json")
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}
