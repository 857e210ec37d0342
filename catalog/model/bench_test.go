package model

import (
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/internal/cputime"
)

// Benchmarks over the shared real catalog (14 MB of FBC, 745 bundles)
// and over four copies of it with renamed packages (2,980 bundles: about
// the blob count of the largest public catalog, redhat-operator-index's
// 55 MB FBC). The catalog is loaded once, outside the timing.
//
//	go test -run '^$' -bench . -benchmem ./catalog/model/

func benchCatalog(b *testing.B, copies int) *declcfg.DeclarativeConfig {
	cfg := sharedConfig(b)
	if copies > 1 {
		cfg = replicate(cfg, copies)
	}
	return cfg
}

func benchConvert(b *testing.B, copies int) {
	cfg := benchCatalog(b, copies)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		Convert(cfg)
	}
	reportCPU(b, cpu0)
}

// reportCPU adds the process CPU time per op (all threads; steadier than
// wall time on a shared machine).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkConvert: model, validation and warnings.
func BenchmarkConvert(b *testing.B)   { benchConvert(b, 1) }
func BenchmarkConvertX4(b *testing.B) { benchConvert(b, 4) }

func benchAll(b *testing.B, copies int) {
	cfg := benchCatalog(b, copies)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		c := Convert(cfg)
		c.Graphs()
		for _, p := range c.Packages {
			p.Graph()
		}
	}
	reportCPU(b, cpu0)
}

// BenchmarkModelAndGraphs: Convert plus every channel graph and every
// cross-channel package view.
func BenchmarkModelAndGraphs(b *testing.B)   { benchAll(b, 1) }
func BenchmarkModelAndGraphsX4(b *testing.B) { benchAll(b, 4) }

func benchViews(b *testing.B, copies int) {
	c := Convert(benchCatalog(b, copies))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	cpu0 := cputime.Process()
	for b.Loop() {
		n = len(c.InstalledViews())
	}
	reportCPU(b, cpu0)
	b.ReportMetric(float64(n), "views/op")
}

// BenchmarkInstalledViews: the OLM v0 and v1 answers for every channel
// entry (the per installed bundle files), on all CPUs.
func BenchmarkInstalledViews(b *testing.B)   { benchViews(b, 1) }
func BenchmarkInstalledViewsX4(b *testing.B) { benchViews(b, 4) }
