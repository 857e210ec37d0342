package declcfg

import (
	"context"
	"io/fs"
	"os"
	"testing"

	"github.com/upgraph/upgraph/internal/cputime"
)

// sharedCatalog is the real catalog the tests and benchmarks read.
const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

// BenchmarkLoad loads the shared catalog (33 YAML files, 14 MB, 856
// blobs). Besides wall time it reports CPU time per load (cpu-ms/op),
// which a busy machine does not inflate, and the catalog's size (MB/s).
func BenchmarkLoad(b *testing.B) {
	benchmarkLoad(b, os.DirFS(sharedCatalog))
}

// BenchmarkLoadLarge loads a catalog the size of the largest public one
// (redhat-operator-index, about 55 MB of FBC): the shared catalog written
// three times over as indented JSON, one catalog.json per package as
// `opm render -o json` writes them (about 60 MB, 2568 blobs).
func BenchmarkLoadLarge(b *testing.B) {
	benchmarkLoad(b, os.DirFS(largeCatalog(b, 3)))
}

func benchmarkLoad(b *testing.B, fsys fs.FS) {
	var size int64
	if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			size += info.Size()
		}
		return err
	}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	start := cputime.Process()
	for b.Loop() {
		if _, err := LoadFS(context.Background(), fsys); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cputime.Process()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkLoadJSON loads the shared catalog written as indented JSON,
// one catalog.json per package (about 20 MB, 856 blobs): the same
// catalog as BenchmarkLoad in the other format opm writes.
func BenchmarkLoadJSON(b *testing.B) {
	benchmarkLoad(b, os.DirFS(largeCatalog(b, 1)))
}
