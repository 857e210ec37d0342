package precompress

import (
	"bytes"
	stdgzip "compress/gzip"
	"crypto/sha256"
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
	"github.com/upgraph/upgraph/internal/cputime"
)

// BenchmarkGzip compresses samples of a tree's served files with the
// copies' compressors (copies: GzipFile, by name) and candidates, and
// reports CPU time per megabyte (cpu-ms/MB, the process's CPU time: the
// machine is shared) and the compressed size in per cent of the input
// (size-%) and of compress/gzip level 9's (vs-std-%), the compressor of
// every copy until large graphs' went to klauspost/compress.
//
// BENCH_TREE names a generated tree (a real-scale one: its graph/ and
// operators/); without it, a synthetic graph sample is used. Samples
// are every k-th file of a class, in name order, up to about 8 MB:
// per-version graphs (version), channel graphs (channel), catalog files
// getting copies (catalog). BENCH_CHANNEL names a channel whose graphs
// and per-version graphs, over every architecture and each content
// once, are one more class (release): about what a new release in that
// channel renders again, and compresses, in an incremental run.
func BenchmarkGzip(b *testing.B) {
	classes := benchSamples(b, os.Getenv("BENCH_TREE"), os.Getenv("BENCH_CHANNEL"))
	type compressor struct {
		name string
		gzip func(dst []byte, name string, data []byte) []byte
	}
	anyName := func(c func(dst, data []byte) []byte) func([]byte, string, []byte) []byte {
		return func(dst []byte, _ string, data []byte) []byte { return c(dst, data) }
	}
	std := stdCompressor(stdgzip.BestCompression)
	compressors := []compressor{{"copies", shared.GzipFile}, {"std-9", anyName(std)}}
	for _, level := range []int{8, 7, 6} {
		compressors = append(compressors, compressor{fmt.Sprintf("std-%d", level), anyName(stdCompressor(level))})
	}
	for _, level := range []int{9, 8, 7, 6, 5} {
		compressors = append(compressors, compressor{fmt.Sprintf("klauspost-%d", level), anyName(kpCompressor(level))})
	}
	for _, class := range classes {
		raw, stdSize := 0, 0
		for _, f := range class.files {
			raw += len(f.data)
			stdSize += len(std(nil, f.data))
		}
		for _, c := range compressors {
			b.Run(class.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(raw))
				var dst []byte
				size := 0
				cpu := cputime.Process()
				for b.Loop() {
					size = 0
					for _, f := range class.files {
						dst = c.gzip(dst[:0], f.name, f.data)
						size += len(dst)
					}
				}
				cpu = cputime.Process() - cpu
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

type benchFile struct {
	name string // slash-separated, in the tree
	data []byte
}

type benchClass struct {
	name  string
	files []benchFile
}

// sampleBytes is about how much of each class a benchmark compresses.
const sampleBytes = 8 << 20

// benchSamples returns the samples of root's classes of files (see
// BenchmarkGzip); synthetic graphs without root.
func benchSamples(b *testing.B, root, channel string) []benchClass {
	b.Helper()
	if root == "" {
		var c benchClass
		for i, g := range syntheticGraphs(rand.New(rand.NewPCG(5, 6)), 200, 5, 400) {
			c.files = append(c.files, benchFile{fmt.Sprintf("graph/amd64/stable-4.%d.json", i), g})
		}
		return []benchClass{{"synthetic", c.files}}
	}
	byClass := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, err := filepath.Rel(root, p)
		if err != nil || strings.HasSuffix(name, Suffix) {
			return err
		}
		name = filepath.ToSlash(name)
		parts := strings.Split(name, "/")
		switch {
		case parts[0] == "graph" && len(parts) == 3 && strings.HasSuffix(name, ".json"):
			byClass["channel"] = append(byClass["channel"], name)
		case parts[0] == "graph" && len(parts) == 4:
			byClass["version"] = append(byClass["version"], name)
		case parts[0] == "operators":
			byClass["catalog"] = append(byClass["catalog"], name)
		}
		if channel != "" && parts[0] == "graph" && len(parts) >= 3 && strings.TrimSuffix(parts[2], ".json") == channel {
			byClass["release"] = append(byClass["release"], name)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	var classes []benchClass
	for _, class := range []string{"version", "channel", "catalog"} {
		names := byClass[class]
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		// The class's mean size, from its first files, sets the stride.
		mean, probe := 0, min(len(names), 50)
		for _, name := range names[:probe] {
			if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err == nil {
				mean += int(st.Size())
			}
		}
		stride := max(len(names)*max(mean/probe, 1)/sampleBytes, 1)
		c := benchClass{name: class}
		for i := 0; i < len(names); i += stride {
			if data := read(names[i]); Wanted(names[i], len(data)) {
				c.files = append(c.files, benchFile{names[i], data})
			}
		}
		classes = append(classes, c)
	}
	if names := byClass["release"]; len(names) > 0 {
		slices.Sort(names)
		c := benchClass{name: "release"}
		seen := map[[sha256.Size]byte]bool{}
		for _, name := range names {
			data := read(name)
			if sum := sha256.Sum256(data); !seen[sum] {
				seen[sum] = true
				c.files = append(c.files, benchFile{name, data})
			}
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
