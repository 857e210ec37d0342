package generator_test

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/gcbudget"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// BenchmarkBuild measures loading graph-data and releases and applying the
// graph-data (the graph-builder's work).
func BenchmarkBuild(b *testing.B) {
	src, gd := realInputs(b)
	defer gcbudget.Apply(generator.HeapBudget)() // as upgraph generate runs
	for b.Loop() {
		if _, err := generator.Build(context.Background(), src, gd, generator.BuildOptions{GraphData: graphdata.DefaultOptions()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReleases measures reading and assembling the synthesised
// release-metadata documents, the first part of BenchmarkBuild.
func BenchmarkReleases(b *testing.B) {
	src, _ := realInputs(b)
	for b.Loop() {
		if _, err := src.Graph(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate measures a full generation from the real graph-data and
// synthesised releases: build, render every channel × arch graph and every
// per-version graph, write them and index.json, and commit the tree. The
// output goes to BENCH_OUT_DIR when set (e.g. a disk rather than tmpfs).
// "replace" regenerates one tree, as a scheduled job does (the tree
// replaced is made before the timer starts): unchanged files are linked
// from the tree replaced, which is then removed. "fresh"
// writes every file into a new directory each time. The "-gz" variants
// also write the gzip copies, as upgraph generate does by default
// (RenderOptions.Precompress): "replace-gz" carries the unchanged copies
// over, "fresh-gz" compresses every one. The collector runs against
// generator.HeapBudget, as in upgraph generate. cpu-s is the process's
// user and system time per generation, all goroutines included.
func BenchmarkGenerate(b *testing.B) {
	src, gd := realInputs(b)
	defer gcbudget.Apply(generator.HeapBudget)()
	base := os.Getenv("BENCH_OUT_DIR")
	if base == "" {
		base = b.TempDir()
	}
	// BENCH_LOG=1 logs each stage's duration (the Debug records).
	var log *slog.Logger
	if os.Getenv("BENCH_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	generate := func(b *testing.B, out string, gz bool) *manifest.Manifest {
		built, err := generator.Build(context.Background(), src, gd, generator.BuildOptions{GraphData: graphdata.DefaultOptions(), Logger: log})
		if err != nil {
			b.Fatal(err)
		}
		m, err := generator.Render(context.Background(), built, generator.RenderOptions{
			Store: writer.DirStore{Dir: out}, GeneratedAt: time.Unix(0, 0), Precompress: gz,
			Logger: log,
		})
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	report := func(b *testing.B, m *manifest.Manifest, out string, cpu float64) {
		b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(m.Counts.Files), "files")
		b.ReportMetric(float64(m.Counts.Bytes)/1e6, "MB-written")
		b.ReportMetric(medianVersionRatio(b, out), "median-version/channel")
		// The whole test process so far, the synthesised inputs included.
		b.ReportMetric(peakRSS()/1e6, "peak-RSS-MB")
	}
	for _, gz := range []bool{false, true} {
		suffix := ""
		if gz {
			suffix = "-gz"
		}
		b.Run("replace"+suffix, func(b *testing.B) {
			out := filepath.Join(base, "tree"+suffix)
			m := generate(b, out, gz) // the tree a scheduled run replaces
			stop := profileLoop(b, "replace"+suffix)
			cpu := cpuSeconds()
			for b.Loop() {
				m = generate(b, out, gz)
			}
			stop()
			report(b, m, out, cpuSeconds()-cpu)
		})
		b.Run("fresh"+suffix, func(b *testing.B) {
			stale, _ := filepath.Glob(filepath.Join(base, "fresh-*")) // from an interrupted run
			for _, d := range stale {
				os.RemoveAll(d)
			}
			var m *manifest.Manifest
			var out string
			cpu := cpuSeconds()
			for i := 0; b.Loop(); i++ {
				dir := filepath.Join(base, fmt.Sprintf("fresh-%d", i))
				b.Cleanup(func() { os.RemoveAll(dir) })
				m, out = generate(b, dir, gz), dir
			}
			report(b, m, out, cpuSeconds()-cpu)
		})
	}
}

// profileLoop starts a CPU profile of the timed loop alone (not of the
// inputs' synthesis or the tree made first) into $BENCH_CPUPROFILE-name
// when BENCH_CPUPROFILE is set, and returns the function that stops it.
func profileLoop(b *testing.B, name string) (stop func()) {
	prefix := os.Getenv("BENCH_CPUPROFILE")
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(prefix + "-" + name)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// medianVersionRatio is the median size of a per-version file as a fraction
// of its channel file (the plain files, not their gzip copies).
func medianVersionRatio(tb testing.TB, tree string) float64 {
	tb.Helper()
	var ratios []float64
	err := filepath.WalkDir(filepath.Join(tree, "graph"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Count(filepath.ToSlash(p[len(tree):]), "/") != 4 || strings.HasSuffix(p, ".gz") {
			return err
		}
		st, err := os.Stat(filepath.Dir(p) + ".json")
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		ratios = append(ratios, float64(info.Size())/float64(st.Size()))
		return nil
	})
	if err != nil || len(ratios) == 0 {
		tb.Fatalf("walking %s: %v (%d files)", tree, err, len(ratios))
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}
