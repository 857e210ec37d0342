package mirrorset

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

// BenchmarkMirrorSetFourCatalogs (issue 25 item 5): an OLM v0 mirror set
// (dependency closure, filtered catalogs written and checked) over four
// catalogs of the shared catalog's size (priorities 0, 10, 20, 30) for
// 20 installed operators (20 packages, rabbitmq-messaging-topology-operator
// first, each its default channel's oldest bundle, spread over the four
// catalogs), to their heads. The catalogs are loaded once, outside the
// timing (load-s); live-MB is the heap after a collection with the
// catalogs and the set alive.
//
//	go test -run '^$' -bench MirrorSetFourCatalogs -benchmem ./tools/mirrorset/
func BenchmarkMirrorSetFourCatalogs(b *testing.B) {
	start := time.Now()
	var cats []*Catalog
	for i := range 4 {
		c := loadCatalog(b, fmt.Sprintf("cat-%d", i), sharedCatalog)
		c.Priority = int32(10 * i)
		cats = append(cats, c)
	}
	load := time.Since(start)
	installs := benchInstalls(cats[0].Model, 20)
	b.ReportAllocs()
	b.ResetTimer()
	var plan *Plan
	var err error
	for b.Loop() {
		if plan, err = Compute(cats, installs, upgrade.V0); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if !plan.Found() || plan.Counts.Bundles == 0 {
		b.Fatalf("the benchmark's installs lost a path or keep nothing: %+v", plan.Installs)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
	b.ReportMetric(load.Seconds(), "load-s")
	b.ReportMetric(float64(plan.Counts.Bundles), "bundles")
	runtime.KeepAlive(cats)
}

// benchInstalls: n packages of m (rabbitmq-messaging-topology-operator
// first, then by name), each its default channel's oldest bundle, with a
// path to its head, catalogs cat-0 … cat-3 in turn.
func benchInstalls(m *model.Catalog, n int) []Install {
	var pkgs []*model.Package
	if p := m.Package("rabbitmq-messaging-topology-operator"); p != nil {
		pkgs = append(pkgs, p)
	}
	for _, p := range m.Packages {
		if p.Name != "rabbitmq-messaging-topology-operator" {
			pkgs = append(pkgs, p)
		}
	}
	var out []Install
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
		in := Install{Catalog: fmt.Sprintf("cat-%d", len(out)%4), Package: p.Name, Channel: ch.Name, Version: oldest.Name}
		if r, err := upgrade.FindInPackage(p, upgrade.Query{Package: p.Name, Channel: ch.Name, From: oldest.Name, OLM: upgrade.V0}); err != nil || !r.Found {
			continue
		}
		out = append(out, in)
		if len(out) == n {
			break
		}
	}
	return out
}
