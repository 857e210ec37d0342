package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/tree/manifest"
)

// sharedCatalog is the real FBC root of the shared catalog (the README
// beside it gives its source and counts).
const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

func needSharedCatalog(tb testing.TB) string {
	tb.Helper()
	abs, err := filepath.Abs(sharedCatalog)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		tb.Skipf("shared catalog not available: %v", err)
	}
	return abs
}

// syntheticCatalog writes, under dir, copies of the shared catalog as
// `opm render -o json` writes catalogs (one indented JSON stream per
// package), the packages of copy k renamed with the suffix -k (bundle
// and channel names are package-scoped and stay), until the catalog is at
// least minBytes: the size of the largest public catalog,
// redhat-operator-index (about 55 MB of FBC, a few thousand bundles).
// It returns the size written and the number of bundles.
func syntheticCatalog(tb testing.TB, dir string, minBytes int) (size, bundles int) {
	tb.Helper()
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(needSharedCatalog(tb)))
	if err != nil {
		tb.Fatal(err)
	}
	type blob struct {
		pkg string
		v   map[string]any
	}
	var blobs []blob
	for _, m := range cfg.Metas {
		dec := json.NewDecoder(bytes.NewReader(m.Blob))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			tb.Fatal(err)
		}
		pkg := m.Package
		if m.Schema == declcfg.SchemaPackage {
			pkg = m.Name
		}
		blobs = append(blobs, blob{pkg, v})
	}
	rename := func(v map[string]any, schema, suffix string) {
		switch schema {
		case declcfg.SchemaPackage:
			v["name"] = v["name"].(string) + suffix
		case declcfg.SchemaChannel, declcfg.SchemaDeprecations:
			v["package"] = v["package"].(string) + suffix
		case declcfg.SchemaBundle:
			v["package"] = v["package"].(string) + suffix
			for _, p := range v["properties"].([]any) {
				prop := p.(map[string]any)
				if prop["type"] == "olm.package" {
					val := prop["value"].(map[string]any)
					val["packageName"] = val["packageName"].(string) + suffix
				}
			}
		}
	}
	for k := 0; size < minBytes; k++ {
		files := map[string]*bytes.Buffer{}
		for _, b := range blobs {
			suffix := fmt.Sprintf("-%d", k)
			raw, err := json.Marshal(b.v) // a deep copy, renamed below
			if err != nil {
				tb.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			var v map[string]any
			if err := dec.Decode(&v); err != nil {
				tb.Fatal(err)
			}
			rename(v, v["schema"].(string), suffix)
			if v["schema"] == declcfg.SchemaBundle {
				bundles++
			}
			out, err := json.MarshalIndent(v, "", "    ")
			if err != nil {
				tb.Fatal(err)
			}
			buf := files[b.pkg+suffix]
			if buf == nil {
				buf = &bytes.Buffer{}
				files[b.pkg+suffix] = buf
			}
			buf.Write(out)
			buf.WriteByte('\n')
		}
		for pkg, buf := range files {
			p := filepath.Join(dir, pkg, "catalog.json")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				tb.Fatal(err)
			}
			size += buf.Len()
		}
	}
	return size, bundles
}

// BenchmarkGenerateCatalog runs upgraph generate --catalog, the real
// binary, from an FBC directory to a finished tree: the shared real
// catalog (14 MB of YAML, 745 bundles), and a synthetic catalog the size
// of the largest public one (the shared catalog as indented JSON copied
// under renamed packages to at least 55 MB). It reports the wall time and
// the peak resident size of the process (its rusage), and what it wrote.
// Each run replaces the tree of the previous one, as a scheduled job
// does.
//
//	go test ./cmd/upgraph -run '^$' -bench GenerateCatalog -benchtime 3x
func BenchmarkGenerateCatalog(b *testing.B) {
	shared := needSharedCatalog(b)
	synthetic := filepath.Join(b.TempDir(), "synthetic")
	size, bundles := syntheticCatalog(b, synthetic, 55e6)
	b.Logf("synthetic catalog: %.1f MB, %d bundles", float64(size)/1e6, bundles)
	for _, bc := range []struct{ name, dir string }{{"shared", shared}, {"synthetic-55MB", synthetic}} {
		b.Run(bc.name, func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "tree")
			var wall, cpu time.Duration
			var rss int64
			for b.Loop() {
				cmd := exec.Command(binary, "generate", "--catalog", "c="+bc.dir, "--out", out)
				cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("%v: %s", err, stderr.String())
				}
				wall += time.Since(start)
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					rss = max(rss, ru.Maxrss*1024)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			m, err := manifest.Read(out)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
			// CPU time (user and system), which a busy machine does not
			// inflate as it does wall time.
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(rss)/1e6, "peak-RSS-MB")
			b.ReportMetric(float64(m.Counts.Files), "files")
			b.ReportMetric(float64(m.Counts.Bytes)/1e6, "MB-written")
			if !strings.Contains(string(mustRead(b, filepath.Join(out, "index.json"))), `"catalogs"`) {
				b.Fatal("no catalog in the tree")
			}
		})
	}
}

func mustRead(tb testing.TB, p string) []byte {
	tb.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
