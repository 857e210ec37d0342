package model

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// BenchmarkV0PathsReplacesChain computes every entry's InstalledView (what
// its next/ file holds before the cut) on one channel of n bundles each
// replacing the one before: OLM v0's path from bundle i has n-1-i hops,
// so the paths hold n²/2 hops in all. It reports CPU time per channel.
func BenchmarkV0PathsReplacesChain(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := Convert(replacesChain(b, n))
			ch := m.Package("p").Channel("stable")
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				for _, e := range ch.Entries {
					v := e.InstalledView()
					if e.Name == "p.v1.0.0" && len(v.OLMV0.PathToHead) != n-1 {
						b.Fatalf("path of %d hops from the oldest bundle, want %d", len(v.OLMV0.PathToHead), n-1)
					}
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// replacesChain is package p with one channel of bundles 1.0.0 …
// 1.0.(n-1), each replacing the one before.
func replacesChain(tb testing.TB, n int) *declcfg.DeclarativeConfig {
	tb.Helper()
	var b strings.Builder
	b.WriteString(`{"schema":"olm.package","name":"p","defaultChannel":"stable"}` + "\n")
	b.WriteString(`{"schema":"olm.channel","name":"stable","package":"p","entries":[`)
	for i := range n {
		if i > 0 {
			fmt.Fprintf(&b, `,{"name":"p.v1.0.%d","replaces":"p.v1.0.%d"}`, i, i-1)
		} else {
			b.WriteString(`{"name":"p.v1.0.0"}`)
		}
	}
	b.WriteString("]}\n")
	for i := range n {
		fmt.Fprintf(&b, `{"schema":"olm.bundle","name":"p.v1.0.%d","package":"p","image":"quay.io/x/p@sha256:%064d","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.%d"}}]}`+"\n", i, i, i)
	}
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(b.String()), "catalog.json")
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}
