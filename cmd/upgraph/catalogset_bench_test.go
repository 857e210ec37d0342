package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

// BenchmarkCatalogSetFourCatalogs (issue 25 item 5) runs the real binary
// end to end, reading the catalogs from disk as a user's run does:
// upgraph plan 4.20.1 → 4.21.0 (OLM v0) and upgraph mirror-set (OLM v0)
// over a catalog set of four catalogs, each a distinct copy of the
// shared catalog (14 MB of YAML, 33 packages), with 20 installed
// operators (20 packages, rabbitmq-messaging-topology-operator first: it
// has dependencies; each its default channel's oldest bundle with a path
// to its head, catalogs cat-0 … cat-3 in turn). plan reads every catalog
// at both minors: "one-source" gives each catalog one source for both
// (8 reads of 4 directories), "per-minor" a distinct copy per minor (8
// directories). It reports the wall and CPU time per run and the peak
// resident size of the process (its rusage). With UPGRAPH_BENCH_BASELINE
// naming another build of upgraph, each iteration also runs it, right
// after, and reports its figures as base-…: a comparison under the same
// load.
//
//	go test ./cmd/upgraph -run '^$' -bench CatalogSetFourCatalogs -benchtime 3x
func BenchmarkCatalogSetFourCatalogs(b *testing.B) {
	shared := needSharedCatalog(b)
	tree := planTree(b)
	dir := b.TempDir()
	var copies []string
	for i := range 8 {
		d := filepath.Join(dir, fmt.Sprintf("copy-%d", i))
		if err := os.CopyFS(d, os.DirFS(shared)); err != nil {
			b.Fatal(err)
		}
		copies = append(copies, d)
	}
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(shared))
	if err != nil {
		b.Fatal(err)
	}
	installs := benchSetInstalls(model.Convert(cfg), 20)
	if len(installs) != 20 {
		b.Fatalf("the shared catalog gives %d installs, want 20", len(installs))
	}
	installed := filepath.Join(dir, "installed.yaml")
	if err := os.WriteFile(installed, []byte(strings.Join(installs, "")), 0o644); err != nil {
		b.Fatal(err)
	}
	var oneSource, perMinor, mirrorSet strings.Builder
	for _, w := range []*strings.Builder{&oneSource, &perMinor, &mirrorSet} {
		w.WriteString("catalogs:\n")
	}
	for i := range 4 {
		head := fmt.Sprintf("- name: cat-%d\n  priority: %d\n", i, 10*i)
		fmt.Fprintf(&oneSource, "%s  source: dir:%s\n", head, copies[i])
		fmt.Fprintf(&mirrorSet, "%s  source: dir:%s\n", head, copies[i])
		fmt.Fprintf(&perMinor, "%s  minors:\n    v4.20: dir:%s\n    v4.21: dir:%s\n", head, copies[i], copies[4+i])
	}
	sets := map[string]string{}
	for name, w := range map[string]*strings.Builder{"one-source": &oneSource, "per-minor": &perMinor, "mirror-set": &mirrorSet} {
		sets[name] = filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(sets[name], []byte(w.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	plan := func(set string) []string {
		return []string{"plan", "--source", tree, "--channel", "stable-4.21", "--from", "4.20.1", "--to", "4.21.0",
			"--olm", "v0", "--format", "json", "--operators", installed, "--catalog-set", set}
	}
	cases := []struct {
		name string
		args []string
	}{
		{"plan/one-source", plan(sets["one-source"])},
		{"plan/per-minor", plan(sets["per-minor"])},
		{"mirror-set", []string{"mirror-set", "--olm", "v0", "--format", "json", "--installed", installed,
			"--catalog-set", sets["mirror-set"], "--out", filepath.Join(dir, "out")}},
	}
	binaries := []string{binary}
	if base := os.Getenv("UPGRAPH_BENCH_BASELINE"); base != "" {
		binaries = append(binaries, base)
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			wall := make([]time.Duration, len(binaries))
			cpu := make([]time.Duration, len(binaries))
			rss := make([]int64, len(binaries))
			for b.Loop() {
				for k, bin := range binaries {
					os.RemoveAll(filepath.Join(dir, "out"))
					cmd := exec.Command(bin, bc.args...)
					var stdout, stderr bytes.Buffer
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					start := time.Now()
					err := cmd.Run()
					wall[k] += time.Since(start)
					if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 {
						b.Fatalf("%s %s: %v: %s", bin, strings.Join(bc.args, " "), err, stderr.String())
					}
					if !bytes.Contains(stdout.Bytes(), []byte("rabbitmq-messaging-topology-operator")) {
						b.Fatalf("the answer does not name the first install:\n%.2000s", stdout.String())
					}
					if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
						rss[k] = max(rss[k], ru.Maxrss*1024)
					}
					cpu[k] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
			}
			for k, prefix := range []string{"", "base-"}[:len(binaries)] {
				b.ReportMetric(wall[k].Seconds()/float64(b.N), prefix+"wall-s/op")
				b.ReportMetric(cpu[k].Seconds()/float64(b.N), prefix+"cpu-s/op")
				b.ReportMetric(float64(rss[k])/1e6, prefix+"peak-RSS-MB")
			}
		})
	}
}

// benchSetInstalls: n packages of m (rabbitmq-messaging-topology-operator
// first, then in the catalog's order), each its default channel's oldest
// bundle with an OLM v0 path to its head, catalogs cat-0 … cat-3 in
// turn, as YAML list items.
func benchSetInstalls(m *model.Catalog, n int) []string {
	var pkgs []*model.Package
	if p := m.Package("rabbitmq-messaging-topology-operator"); p != nil {
		pkgs = append(pkgs, p)
	}
	for _, p := range m.Packages {
		if p.Name != "rabbitmq-messaging-topology-operator" {
			pkgs = append(pkgs, p)
		}
	}
	var out []string
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
		if r, err := upgrade.FindInPackage(p, upgrade.Query{Package: p.Name, Channel: ch.Name, From: oldest.Name, OLM: upgrade.V0}); err != nil || !r.Found {
			continue
		}
		out = append(out, fmt.Sprintf("- catalog: cat-%d\n  package: %s\n  channel: %s\n  version: %s\n", len(out)%4, p.Name, ch.Name, oldest.Name))
		if len(out) == n {
			break
		}
	}
	return out
}
