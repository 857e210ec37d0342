package generator_test

import (
	"context"
	"io/fs"
	"os"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
)

const realGraphData = "../../shared/graph-data"

var (
	realOnce     sync.Once
	realReleases fstest.MapFS
	realErr      error
)

// realInputs returns the real graph-data snapshot and release metadata
// synthesised for every version its channels name.
func realInputs(tb testing.TB) (source.Source, fs.FS) {
	tb.Helper()
	gd := os.DirFS(realGraphData)
	realOnce.Do(func() { realReleases, realErr = synth.MetadataFS(gd) })
	if realErr != nil {
		tb.Fatal(realErr)
	}
	return &source.MetadataDir{Dir: "synthesised", FS: realReleases}, gd
}

func buildReal(tb testing.TB) *generator.Built {
	tb.Helper()
	src, gd := realInputs(tb)
	b, err := generator.Build(context.Background(), src, gd, generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
