package precompress

import (
	"bytes"
	stdgzip "compress/gzip"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	kpgzip "github.com/klauspost/compress/gzip"
)

// BenchmarkGzip compresses samples of a tree's served files with the
// copies' compressor and its candidates, and reports CPU time per
// megabyte (cpu-ms/MB, the process's CPU time: the machine is shared)
// and the compressed size in per cent of the input (size-%) and of
// compress/gzip level 9's (vs-std-%), the compressor of the copies
// until klauspost/compress replaced it.
//
// BENCH_TREE names a generated tree (a real-scale one: its graph/ and
// operators/); without it, a synthetic graph sample is used. Samples
// are every k-th file of a class, in name order, up to about 8 MB.
func BenchmarkGzip(b *testing.B) {
	classes := benchSamples(b, os.Getenv("BENCH_TREE"))
	type compressor struct {
		name string
		gzip func(dst, data []byte) []byte
	}
	compressors := []compressor{{"copies", func(dst, data []byte) []byte { return shared.Gzip(dst, data) }}}
	std := stdCompressor(stdgzip.BestCompression)
	compressors = append(compressors, compressor{"std-9", std})
	for _, level := range []int{8, 7, 6} {
		compressors = append(compressors, compressor{fmt.Sprintf("std-%d", level), stdCompressor(level)})
	}
	for _, level := range []int{9, 8, 7, 6} {
		compressors = append(compressors, compressor{fmt.Sprintf("klauspost-%d", level), kpCompressor(level)})
	}
	for _, class := range classes {
		raw := 0
		for _, f := range class.files {
			raw += len(f)
		}
		stdSize := 0
		for _, f := range class.files {
			stdSize += len(std(nil, f))
		}
		for _, c := range compressors {
			b.Run(class.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(raw))
				var dst []byte
				size := 0
				cpu := cpuTime()
				for b.Loop() {
					size = 0
					for _, f := range class.files {
						dst = c.gzip(dst[:0], f)
						size += len(dst)
					}
				}
				cpu = cpuTime() - cpu
				b.ReportMetric(cpu.Seconds()*1e3/float64(b.N)/(float64(raw)/1e6), "cpu-ms/MB")
				b.ReportMetric(100*float64(size)/float64(raw), "size-%")
				b.ReportMetric(100*float64(size)/float64(stdSize), "vs-std-%")
			})
		}
	}
}

// stdCompressor is compress/gzip at level, with the copies' header.
func stdCompressor(level int) func(dst, data []byte) []byte {
	var out bytes.Buffer
	zw, _ := stdgzip.NewWriterLevel(&out, level)
	return func(dst, data []byte) []byte {
		out.Reset()
		zw.Reset(&out)
		zw.Header = stdgzip.Header{OS: unknownOS, Comment: gzipComment}
		zw.Write(data)
		zw.Close()
		return append(dst, out.Bytes()...)
	}
}

// kpCompressor is klauspost/compress's gzip at level, with the copies'
// header.
func kpCompressor(level int) func(dst, data []byte) []byte {
	var out bytes.Buffer
	zw, _ := kpgzip.NewWriterLevel(&out, level)
	return func(dst, data []byte) []byte {
		out.Reset()
		zw.Reset(&out)
		zw.Header = kpgzip.Header{OS: unknownOS, Comment: largeComment, ModTime: time.Unix(0, 0)}
		zw.Write(data)
		zw.Close()
		return append(dst, out.Bytes()...)
	}
}

type benchClass struct {
	name  string
	files [][]byte
}

// sampleBytes is about how much of each class a benchmark compresses.
const sampleBytes = 8 << 20

// benchSamples returns the samples of root's classes of files: channel
// graphs (graph/<arch>/<channel>.json), per-version graphs
// (graph/<arch>/<channel>/<version>.json) and catalog files
// (operators/…, those that get copies); synthetic graphs without root.
func benchSamples(b *testing.B, root string) []benchClass {
	b.Helper()
	if root == "" {
		return []benchClass{{"synthetic", syntheticGraphs(rand.New(rand.NewPCG(5, 6)), 200, 5, 400)}}
	}
	byClass := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if strings.HasSuffix(name, Suffix) {
			return nil
		}
		switch parts := strings.Split(name, "/"); {
		case parts[0] == "graph" && len(parts) == 3 && strings.HasSuffix(name, ".json"):
			byClass["channel"] = append(byClass["channel"], p)
		case parts[0] == "graph" && len(parts) == 4:
			byClass["version"] = append(byClass["version"], p)
		case parts[0] == "operators":
			byClass["catalog"] = append(byClass["catalog"], p)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	var classes []benchClass
	for _, name := range []string{"version", "channel", "catalog"} {
		paths := byClass[name]
		slices.Sort(paths)
		if len(paths) == 0 {
			continue
		}
		// The class's mean size, from its first files, sets the stride.
		mean := 0
		probe := min(len(paths), 50)
		for _, p := range paths[:probe] {
			if st, err := os.Stat(p); err == nil {
				mean += int(st.Size())
			}
		}
		mean = max(mean/probe, 1)
		stride := max(len(paths)*mean/sampleBytes, 1)
		c := benchClass{name: name}
		for i := 0; i < len(paths); i += stride {
			data, err := os.ReadFile(paths[i])
			if err != nil {
				b.Fatal(err)
			}
			if name == "catalog" && !Wanted("operators/"+filepath.Base(paths[i]), len(data)) {
				continue
			}
			c.files = append(c.files, data)
		}
		classes = append(classes, c)
	}
	return classes
}

// syntheticGraphs makes n graph documents of Cincinnati's shape, of
// lo to hi nodes each (about 400 bytes a node).
func syntheticGraphs(r *rand.Rand, n, lo, hi int) [][]byte {
	var files [][]byte
	for range n {
		var buf bytes.Buffer
		nodes := lo + r.IntN(hi-lo+1)
		buf.WriteString(`{"nodes":[`)
		for i := range nodes {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"version":"4.%d.%d","payload":"quay.io/openshift-release-dev/ocp-release@sha256:%016x%016x%016x%016x","metadata":{"io.openshift.upgrades.graph.release.channels":"candidate-4.%d,fast-4.%d,stable-4.%d","io.openshift.upgrades.graph.release.manifestref":"sha256:%016x%016x%016x%016x","url":"https://access.redhat.com/errata/RHSA-2024:%04d"}}`,
				12+i%6, i, r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), 12+i%6, 12+i%6, 12+i%6, r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.IntN(10000))
		}
		buf.WriteString(`],"edges":[`)
		for i := range nodes * 3 {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, "[%d,%d]", r.IntN(nodes), r.IntN(nodes))
		}
		buf.WriteString(`],"conditionalEdges":[]}`)
		files = append(files, buf.Bytes())
	}
	return files
}
