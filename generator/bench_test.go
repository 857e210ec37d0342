package generator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	catsource "github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/gcbudget"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// BenchmarkBuild measures loading graph-data and releases and applying the
// graph-data (the graph-builder's work).
func BenchmarkBuild(b *testing.B) {
	src, gd := realInputs(b)
	defer gcbudget.Apply(generator.HeapBudget)() // as upgraph generate runs
	cpu := cpuSeconds()
	for b.Loop() {
		if _, err := generator.Build(context.Background(), src, gd, generator.BuildOptions{GraphData: graphdata.DefaultOptions()}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
}

// BenchmarkReleases measures reading and assembling the synthesised
// release-metadata documents, the first part of BenchmarkBuild.
func BenchmarkReleases(b *testing.B) {
	src, _ := realInputs(b)
	cpu := cpuSeconds()
	for b.Loop() {
		if _, err := src.Graph(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
}

// BenchmarkGenerate measures a full generation from the real graph-data and
// synthesised releases: build, render every channel × arch graph and every
// per-version graph, write them and index.json, and commit the tree. The
// output goes to BENCH_OUT_DIR when set (e.g. a disk rather than tmpfs).
// The output is begun while the graph is built (generator.Start), as
// upgraph generate does (until 2026-11-28's session 37 it was begun by
// Render, after the build). "replace" regenerates one tree with Full (upgraph generate --full),
// rendering every graph (the tree replaced is made before the timer
// starts; BenchmarkIncremental measures the incremental regeneration):
// files equal to the replaced tree's are linked from it (or kept, when the
// spare, the generation before, already has them as that inode), and the
// tree replaced is the next spare. "fresh"
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
		// The output is begun during the build, as upgraph generate
		// begins it (generator.Start).
		started := generator.Start(context.Background(), writer.DirStore{Dir: out},
			generator.StartOptions{Full: true, Precompress: gz, Logger: log})
		defer started.Abort()
		built, err := generator.Build(context.Background(), src, gd, generator.BuildOptions{GraphData: graphdata.DefaultOptions(), Logger: log})
		if err != nil {
			b.Fatal(err)
		}
		m, err := generator.Render(context.Background(), built, generator.RenderOptions{
			Started: started, GeneratedAt: time.Unix(0, 0), Precompress: gz,
			Logger: log, Full: true,
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
			if _, err := os.Lstat(writer.SpareName(out)); err != nil {
				m = generate(b, out, gz) // and the spare it has (writer.DirStore)
			}
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
			stop := profileLoop(b, "fresh"+suffix)
			cpu := cpuSeconds()
			for i := 0; b.Loop(); i++ {
				dir := filepath.Join(base, fmt.Sprintf("fresh-%d", i))
				b.Cleanup(func() { os.RemoveAll(dir) })
				m, out = generate(b, dir, gz), dir
			}
			stop()
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

// BenchmarkIncremental measures regenerating the real-scale tree after one
// change, as a scheduled job does, against a full regeneration of the
// same inputs measured in the same iterations (ratio-vs-full): each
// iteration switches the inputs between the real ones and the real ones
// with the change, regenerates tree "inc" incrementally (the time
// measured: build, render, swap) and then tree "full" with Full (timed
// apart). "release": release 4.18.55 appears (its metadata for each
// architecture 4.18.54 has, and candidate-4.18 lists it); "blocked-edge":
// graph-data blocks 4.18.50 → 4.18.54; "nothing": the same inputs again.
// files-rendered counts the graph files of the last incremental run that
// were rendered (the others were taken over from the previous tree), the
// gzip copies aside; files-written counts every file written with its
// bytes (copies, index.json and the files beside the graphs included),
// the others being links or names the spare already had. Both trees have
// their spare (the generation before the one replaced) from the first
// iteration, as a scheduled job's output does. swapped-s/op is the time
// until the new generation is in place (writer.PhaseSwapped), before the
// tree replaced is kept as the spare (or removed, with NoSpare), and
// swapped-ratio-vs-full its ratio to a full run's whole
// time; cpu-s/op and full-cpu-s/op are the process's CPU time per run.
// The output goes to BENCH_OUT_DIR when set.
func BenchmarkIncremental(b *testing.B) {
	src, gdDir := realInputs(b)
	rel := src.(*source.MetadataDir).FS.(fstest.MapFS)
	gd := fstest.MapFS{}
	if err := fs.WalkDir(gdDir, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(gdDir, p)
		gd[p] = &fstest.MapFile{Data: data}
		return err
	}); err != nil {
		b.Fatal(err)
	}
	defer gcbudget.Apply(generator.HeapBudget)()
	base := os.Getenv("BENCH_OUT_DIR")
	if base == "" {
		base = b.TempDir()
	}

	withRelease := func() (fstest.MapFS, fstest.MapFS) {
		r2, g2 := maps.Clone(rel), maps.Clone(gd)
		for _, arch := range []string{"amd64", "arm64", "multi", "ppc64le", "s390x"} {
			f, ok := rel["4.18.54+"+arch+".json"]
			if !ok {
				continue
			}
			var r synth.Release
			if err := json.Unmarshal(f.Data, &r); err != nil {
				b.Fatal(err)
			}
			r.Version, r.Previous = "4.18.55", append(r.Previous, "4.18.54")
			r.Payload = strings.Replace(r.Payload, "sha256:", "sha256:55", 1)[:len(r.Payload)]
			data, err := synth.Encode(r)
			if err != nil {
				b.Fatal(err)
			}
			r2[synth.FileName(r)] = &fstest.MapFile{Data: data}
		}
		ch := "channels/candidate-4.18.yaml"
		g2[ch] = &fstest.MapFile{Data: append(bytes.TrimRight(bytes.Clone(gd[ch].Data), "\n"), "\n- 4.18.55\n"...)}
		return r2, g2
	}
	withBlock := func() (fstest.MapFS, fstest.MapFS) {
		g2 := maps.Clone(gd)
		g2["blocked-edges/4.18.54-bench.yaml"] = &fstest.MapFile{Data: []byte("to: 4.18.54\nfrom: 4\\.18\\.50[+].*\n")}
		return rel, g2
	}
	same := func() (fstest.MapFS, fstest.MapFS) { return rel, gd }
	inc, full := filepath.Join(base, "inc"), filepath.Join(base, "full")
	b.Cleanup(func() {
		// Their spares too: in a tmpfs each holds gigabytes.
		for _, d := range []string{inc, full, writer.SpareName(inc), writer.SpareName(full)} {
			os.RemoveAll(d)
		}
	})

	// BENCH_PRECOMPRESS=0 leaves the gzip copies out (--no-precompress).
	precompressed := os.Getenv("BENCH_PRECOMPRESS") != "0"
	// BENCH_LOG=1 logs each stage's duration (the Debug records) and
	// each phase of the store's commit.
	var log *slog.Logger
	if os.Getenv("BENCH_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// Each run is labelled in CPU profiles (-cpuprofile; pprof
	// -tagfocus run=incremental).
	generate := func(b *testing.B, r, g fstest.MapFS, out string, full bool, stats *generator.Stats) benchRun {
		label := "incremental"
		if full {
			label = "full"
		}
		var t benchRun
		start, cpu := time.Now(), cpuSeconds()
		trace := func(p writer.Phase) {
			if p == writer.PhaseSwapped {
				t.swapped, t.swappedCPU = time.Since(start).Seconds(), cpuSeconds()-cpu
			}
			if log != nil {
				log.Debug("phase", "run", label, "phase", p, "since", time.Since(start), "cpu", cpuSeconds()-cpu)
			}
		}
		pprof.Do(context.Background(), pprof.Labels("run", label), func(ctx context.Context) {
			// As upgraph generate does: the output is begun (locked, its
			// spare and index.json read) while the graph is built.
			started := generator.Start(ctx, writer.DirStore{Dir: out, Trace: trace},
				generator.StartOptions{Full: full, Precompress: precompressed, Logger: log})
			defer started.Abort()
			built, err := generator.Build(ctx, &source.MetadataDir{Dir: "synthesised", FS: r}, g,
				generator.BuildOptions{GraphData: graphdata.DefaultOptions(), Logger: log})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := generator.Render(ctx, built, generator.RenderOptions{
				Started: started, GeneratedAt: time.Unix(0, 0), Precompress: precompressed, Full: full, Stats: stats,
				Logger: log,
			}); err != nil {
				b.Fatal(err)
			}
		})
		t.total, t.totalCPU = time.Since(start).Seconds(), cpuSeconds()-cpu
		return t
	}
	for _, tc := range []struct {
		name   string
		change func() (fstest.MapFS, fstest.MapFS)
	}{{"release", withRelease}, {"blocked-edge", withBlock}, {"nothing", same}} {
		b.Run(tc.name, func(b *testing.B) {
			// Both trees start from the real inputs, made by a full run;
			// they are kept from one case to the next (the copies of a
			// first generation take a minute to compress).
			generate(b, rel, gd, inc, true, nil)
			generate(b, rel, gd, full, true, nil)
			if _, err := os.Lstat(writer.SpareName(inc)); err != nil {
				// A scheduled regeneration has the generation before the
				// one it replaces as its spare (writer.DirStore): so do
				// the runs measured, from the first.
				generate(b, rel, gd, inc, true, nil)
				generate(b, rel, gd, full, true, nil)
			}
			changedRel, changedGD := tc.change()
			var incRun, fullRun benchRun
			var stats generator.Stats
			for i := 0; b.Loop(); i++ {
				r, g := changedRel, changedGD
				if i%2 == 1 {
					r, g = rel, gd
				}
				stats = generator.Stats{}
				incRun.add(generate(b, r, g, inc, false, &stats))
				b.StopTimer()
				fullRun.add(generate(b, r, g, full, true, nil))
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(incRun.total/fullRun.total, "ratio-vs-full")
			b.ReportMetric(incRun.swapped/fullRun.total, "swapped-ratio-vs-full")
			b.ReportMetric(incRun.swapped/n, "swapped-s/op")
			b.ReportMetric(incRun.swappedCPU/n, "swapped-cpu-s/op")
			b.ReportMetric(incRun.totalCPU/n, "cpu-s/op")
			b.ReportMetric(fullRun.total/n, "full-s/op")
			b.ReportMetric(fullRun.totalCPU/n, "full-cpu-s/op")
			b.ReportMetric(float64(stats.FilesRendered), "files-rendered")
			b.ReportMetric(float64(stats.GraphsRendered), "graphs-rendered")
			b.ReportMetric(float64(stats.FilesWritten), "files-written")
			b.ReportMetric(float64(stats.FilesTaken), "files-taken")
		})
	}
}

// BenchmarkIncrementalCatalog measures regenerating the shared catalog
// (/work/shared/catalogs/community-operators-prod-v4.21, or
// BENCH_CATALOG) after one bundle changed (its image, in a copy of the
// catalog, changed back and forth at each run): read, converted and
// rendered incrementally over the previous tree, and rendered with
// --full over another in the same iterations. The time per run includes
// reading and converting the catalog (load-ms, both runs' share);
// files-rendered and files-taken are the incremental run's catalog files.
func BenchmarkIncrementalCatalog(b *testing.B) {
	shared := os.Getenv("BENCH_CATALOG")
	if shared == "" {
		shared = "/work/shared/catalogs/community-operators-prod-v4.21"
	}
	if _, err := os.Stat(shared); err != nil {
		b.Skipf("no shared catalog: %v", err)
	}
	if st, err := os.Stat(filepath.Join(shared, "configs")); err == nil && st.IsDir() {
		shared = filepath.Join(shared, "configs") // the FBC beside its README
	}
	base := os.Getenv("BENCH_OUT_DIR")
	if base == "" {
		base = b.TempDir()
	}
	src := filepath.Join(base, "catalog")
	if err := os.CopyFS(src, os.DirFS(shared)); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(src) })
	// The first bundle image of the first package's file.
	var edited string
	var original, changed []byte
	if err := fs.WalkDir(os.DirFS(src), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || edited != "" || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".json") {
			return err
		}
		data, err := os.ReadFile(filepath.Join(src, p))
		if err != nil {
			return err
		}
		for _, key := range []string{"\nimage: ", `"image":"`, `"image": "`} {
			if i := bytes.Index(data, []byte(key)); i >= 0 {
				j := i + len(key) + bytes.IndexAny(data[i+len(key):], "\n\"")
				original, changed = data, bytes.Clone(data)
				// One character of the tag or digest, still a valid reference.
				changed[j-1] = '0' + (changed[j-1]-'0'+1)%2
				edited = filepath.Join(src, p)
				return nil
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if edited == "" {
		b.Fatalf("%s: no bundle image to change", shared)
	}
	defer gcbudget.Apply(generator.HeapBudget)()
	// The catalog cache keeps the decoded files across runs, as
	// generate's does (BENCH_CATALOG_CACHE=0: none, every file decoded
	// at every run).
	var srcOpts catsource.Options
	if os.Getenv("BENCH_CATALOG_CACHE") != "0" {
		srcOpts.CacheDir = filepath.Join(base, "cache")
		b.Cleanup(func() { os.RemoveAll(srcOpts.CacheDir) })
	}
	var loadTime, loadCPU float64
	// Each run is labelled in CPU profiles (BENCH_CPUPROFILE; pprof
	// -tagfocus run=incremental), and so is reading and converting the
	// catalog (phase=load) apart from rendering (phase=render).
	generate := func(b *testing.B, out string, full bool, stats *generator.Stats) {
		label := "incremental"
		if full {
			label = "full"
		}
		pprof.Do(context.Background(), pprof.Labels("run", label), func(ctx context.Context) {
			start, cpu := time.Now(), cpuSeconds()
			var c *catviews.Catalog
			pprof.Do(ctx, pprof.Labels("phase", "load"), func(context.Context) {
				c = viewstest.LoadWith(b, "community-operators", "dir:"+src, false, srcOpts)
			})
			loadTime += time.Since(start).Seconds()
			loadCPU += cpuSeconds() - cpu
			pprof.Do(ctx, pprof.Labels("phase", "render"), func(ctx context.Context) {
				if _, err := generator.Render(ctx, nil, generator.RenderOptions{
					Store: writer.DirStore{Dir: out}, GeneratedAt: time.Unix(0, 0), Precompress: true, Full: full, Stats: stats,
					Catalogs: []*catviews.Catalog{c},
				}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	inc, full := filepath.Join(base, "inc"), filepath.Join(base, "full")
	b.Cleanup(func() {
		// Their spares too: in a tmpfs each holds gigabytes.
		for _, d := range []string{inc, full, writer.SpareName(inc), writer.SpareName(full)} {
			os.RemoveAll(d)
		}
	})
	generate(b, inc, true, nil)
	generate(b, full, true, nil)
	loadTime, loadCPU = 0, 0
	// BENCH_CATALOG_FULL=0 leaves the --full runs out (a profile of the
	// incremental runs alone).
	withFull := os.Getenv("BENCH_CATALOG_FULL") != "0"
	var incTime, fullTime, incCPU, fullCPU float64
	var stats generator.Stats
	runs := 0
	stop := profileLoop(b, "incremental-catalog")
	for i := 0; b.Loop(); i++ {
		data := changed
		if i%2 == 1 {
			data = original
		}
		// Bytes no run met before (i+1 blank lines at the end change no
		// blob), so the edited file is decoded at every run, as a changed
		// bundle's would be, not read back from the catalog cache.
		data = append(bytes.Clone(data), bytes.Repeat([]byte{'\n'}, i+1)...)
		if err := os.WriteFile(edited, data, 0o644); err != nil {
			b.Fatal(err)
		}
		stats = generator.Stats{}
		start, cpu := time.Now(), cpuSeconds()
		generate(b, inc, false, &stats)
		incTime += time.Since(start).Seconds()
		incCPU += cpuSeconds() - cpu
		if withFull {
			b.StopTimer()
			start, cpu = time.Now(), cpuSeconds()
			generate(b, full, true, nil)
			fullTime += time.Since(start).Seconds()
			fullCPU += cpuSeconds() - cpu
			b.StartTimer()
		}
		runs++
	}
	stop()
	per := func(s float64) float64 { return s / float64(runs) }
	b.ReportMetric(per(incTime)*1000, "inc-ms")
	b.ReportMetric(per(incCPU), "inc-cpu-s")
	if withFull {
		b.ReportMetric(per(fullTime)*1000, "full-ms")
		b.ReportMetric(per(fullCPU), "full-cpu-s")
		b.ReportMetric(incTime/fullTime, "ratio-vs-full")
		loadTime, loadCPU = loadTime/2, loadCPU/2
	}
	b.ReportMetric(per(loadTime)*1000, "load-ms")
	b.ReportMetric(per(loadCPU), "load-cpu-s")
	b.ReportMetric(float64(stats.CatalogFilesRendered), "files-rendered")
	b.ReportMetric(float64(stats.CatalogFilesTaken), "files-taken")
	b.ReportMetric(float64(stats.PackagesRendered), "packages-rendered")
	b.ReportMetric(float64(stats.SegmentsReused), "segments-reused")
	b.ReportMetric(float64(stats.SegmentsCompressed), "segments-compressed")
	if avg, err := os.ReadFile("/proc/loadavg"); err == nil {
		var load float64
		fmt.Sscan(string(avg), &load)
		b.ReportMetric(load, "load1")
	}
}

// benchRun is one generation's wall and CPU seconds until the new tree was
// swapped in (writer.PhaseSwapped) and until Render returned (the tree
// replaced kept as the spare, or removed), or their sums over runs.
type benchRun struct{ swapped, total, swappedCPU, totalCPU float64 }

func (r *benchRun) add(o benchRun) {
	r.swapped += o.swapped
	r.total += o.total
	r.swappedCPU += o.swappedCPU
	r.totalCPU += o.totalCPU
}
