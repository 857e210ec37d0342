package plan

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/tools/mirrorset"
)

// BenchmarkPlanFourCatalogs (issue 25 item 5): a plan 4.20 → 4.21 with
// OLM v0 (dependencies checked at the hop) over a catalog set of four
// catalogs of the shared catalog's size at each minor (the shared
// catalog converted four times, priorities 0, 10, 20, 30) and 20
// installed operators (20 packages, each its default channel's oldest
// bundle, spread over the four catalogs). The catalogs are loaded once,
// outside the timing (load-s: reading the FBC once and converting it
// four times); live-MB is the heap after a collection with the catalogs
// and the plan alive.
//
//	go test -run '^$' -bench PlanFourCatalogs -benchmem ./tools/plan/
func BenchmarkPlanFourCatalogs(b *testing.B) {
	start := time.Now()
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(sharedCatalog))
	if err != nil {
		b.Fatal(err)
	}
	var cats []Catalog
	var models []*model.Catalog
	for i := range 4 {
		models = append(models, model.Convert(cfg))
		for _, m := range []Minor{{4, 20}, {4, 21}} {
			cats = append(cats, Catalog{Minor: m, Key: m.Key(), Name: fmt.Sprintf("cat-%d", i), Priority: int32(10 * i), Model: models[i]})
		}
	}
	ops := benchInstalls(models[0], 20)
	load := time.Since(start)
	req := Request{Release: release("4.20.1", "4.21.0"), OLM: upgrade.V0, Catalogs: cats, Operators: ops}
	b.ReportAllocs()
	b.ResetTimer()
	var p *Plan
	for b.Loop() {
		if p, err = Compute(req); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
	b.ReportMetric(load.Seconds(), "load-s")
	runtime.KeepAlive(p)
	runtime.KeepAlive(models)
}

// benchInstalls: n packages (sorted by name, rabbitmq-messaging-topology-operator
// first: it has dependencies), each its default channel's oldest bundle,
// catalogs cat-0 … cat-3 in turn.
func benchInstalls(m *model.Catalog, n int) []mirrorset.Install {
	pkgs := slices.Clone(m.Packages)
	slices.SortStableFunc(pkgs, func(a, b *model.Package) int {
		if (a.Name == "rabbitmq-messaging-topology-operator") != (b.Name == "rabbitmq-messaging-topology-operator") {
			if a.Name == "rabbitmq-messaging-topology-operator" {
				return -1
			}
			return 1
		}
		return 0
	})
	var out []mirrorset.Install
	for _, p := range pkgs {
		ch := p.Channel(p.DefaultChannelName)
		if ch == nil || !p.Valid() {
			continue
		}
		var oldest *model.Bundle
		for _, e := range ch.Entries {
			if e.Bundle != nil && (oldest == nil || e.Bundle.Compare(oldest) < 0) {
				oldest = e.Bundle
			}
		}
		if oldest == nil {
			continue
		}
		out = append(out, mirrorset.Install{Catalog: fmt.Sprintf("cat-%d", len(out)%4), Package: p.Name, Channel: ch.Name, Version: oldest.Name})
		if len(out) == n {
			break
		}
	}
	return out
}
