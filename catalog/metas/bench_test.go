package metas

import (
	"fmt"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/internal/cputime"
)

// Benchmarks of Files over the shared real catalog (14 MB of FBC, 856
// blobs, 13 MB as catalogd stores it) and over four copies of it with
// renamed packages (3,424 blobs, 52 MB as catalogd stores it: the size of
// the largest public catalog, redhat-operator-index). The catalog is
// loaded once, outside the timing.
//
//	go test -run '^$' -bench . -benchmem ./catalog/metas/

func BenchmarkFiles(b *testing.B)   { benchFiles(b, 1) }
func BenchmarkFilesX4(b *testing.B) { benchFiles(b, 4) }

func benchFiles(b *testing.B, copies int) {
	dc := replicate(load(b, sharedCatalog), copies)
	size := 0
	for _, m := range dc.Metas {
		size += len(m.Blob) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	var files []File
	cpu0 := cputime.Process()
	for b.Loop() {
		files = Files(dc)
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	out := 0
	for _, f := range files {
		out += len(f.Data)
	}
	b.ReportMetric(float64(len(files)), "files/op")
	b.ReportMetric(float64(out)/float64(size), "out/in")
}

// replicate returns copies of dc's blobs, each copy's packages renamed
// (as the loader would see copyK/<package>/ directories); the blob bytes
// are shared, which Files does not look into.
func replicate(dc *declcfg.DeclarativeConfig, copies int) *declcfg.DeclarativeConfig {
	if copies == 1 {
		return dc
	}
	out := &declcfg.DeclarativeConfig{}
	for k := range copies {
		for _, m := range dc.Metas {
			if m.Package != "" {
				m.Package = fmt.Sprintf("%s-copy%d", m.Package, k)
			}
			if m.Schema == declcfg.SchemaPackage {
				m.Name = fmt.Sprintf("%s-copy%d", m.Name, k)
			}
			out.Metas = append(out.Metas, m)
		}
	}
	return out
}

// BenchmarkFilter: what upgraph serve does per request with name=: a
// channel name over all.jsonl of the ×4 catalog (?name=stable, the worst
// case: every package's stable channel matches), and over one package's
// file (?package=P&name=N).
func BenchmarkFilter(b *testing.B) {
	files := byPath(Files(replicate(load(b, sharedCatalog), 4)))
	for _, tc := range []struct{ name, file, value string }{
		{"all", AllFile, "stable"},
		{"package", PackageFile("infinispan-copy0"), "stable"},
	} {
		data := files[tc.file]
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			n := 0
			for b.Loop() {
				n = len(Filter(data, tc.value))
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
	}
}
