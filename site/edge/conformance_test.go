package edge

import (
	"context"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/generator/cvo"
	"github.com/upgraph/upgraph/generator/graphdata"
	"github.com/upgraph/upgraph/generator/manifest"
)

// TestClientConformance asks, for every version of every channel × arch of
// each tree, what a cluster at that version reads through nginx and through
// the Go handler, and requires the same answer: current release, updates
// and conditional updates as the cluster-version operator computes them.
func TestClientConformance(t *testing.T) {
	nginxBinary(t) // fail before spending time on trees
	start := time.Now()
	var compared atomic.Int64
	for _, name := range conformanceFixtures {
		t.Run(name, func(t *testing.T) {
			releases, gd := fixtureInputs(name)
			compared.Add(int64(conform(t, build(t, releases, gd, graphdata.UpstreamOptions()))))
		})
	}
	t.Run("real-graph-data", func(t *testing.T) {
		releases, gd := realInputs(t)
		compared.Add(int64(conform(t, build(t, releases, gd, graphdata.DefaultOptions()))))
	})
	t.Logf("%d (channel, arch, version) comparisons in %s", compared.Load(), time.Since(start).Round(time.Millisecond))
}

// conformWorkers bounds concurrent comparisons: both servers and the
// client share one machine, so more only adds contention.
const conformWorkers = 4

// conform renders b, serves it both ways and compares every version; it
// returns the number of comparisons.
func conform(t *testing.T, b *generator.Built) int {
	dir, m := render(t, b)
	ngxUpstream := startNginx(t, dir) + "/api/upgrades_info/v1/graph"
	goUpstream := startGo(t, dir) + "/api/upgrades_info/v1/graph"

	// One keep-alive transport for all requests. Compression is off: it is
	// transparent to the client (TestNginxGzip covers it) and would double
	// the CPU time of the largest tree.
	transport := &http.Transport{MaxIdleConnsPerHost: 2 * conformWorkers, DisableCompression: true}
	defer transport.CloseIdleConnections()
	client := &cvo.Client{HTTP: &http.Client{Transport: transport}, ID: cvoID}

	type key struct{ channel, arch, version string }
	jobs := make(chan key)
	var (
		mu        sync.Mutex
		done      = map[key]bool{} // each (channel, arch, version) is asked once
		failures  int
		found     int
		updates   int
		condition int
	)
	var wg sync.WaitGroup
	for range conformWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				want, got := ask(client, goUpstream, k.channel, k.arch, k.version), ask(client, ngxUpstream, k.channel, k.arch, k.version)
				mu.Lock()
				if !reflect.DeepEqual(got, want) {
					if failures++; failures <= 5 {
						t.Errorf("%s/%s at %s: through nginx\n%s\nthrough the Go handler\n%s", k.channel, k.arch, k.version, got, want)
					}
				}
				if want.Error == "" {
					found++
				}
				updates += len(want.Updates)
				condition += len(want.ConditionalUpdates)
				mu.Unlock()
			}
		}()
	}
	for _, g := range m.Graphs {
		for _, v := range g.Versions {
			k := key{g.Channel, g.Arch, v}
			if !done[k] {
				done[k] = true
				jobs <- k
			}
		}
	}
	close(jobs)
	wg.Wait()
	if failures > 0 {
		t.Errorf("%d of %d versions differ", failures, len(done))
	}
	// Guard against a vacuous pass: the clusters found themselves and got
	// updates of both kinds somewhere.
	t.Logf("%d versions compared: %d found, %d updates, %d conditional updates", len(done), found, updates, condition)
	if len(done) != versionCount(m) || found == 0 || updates == 0 {
		t.Errorf("vacuous comparison: %d of %d versions, %d found, %d updates", len(done), versionCount(m), found, updates)
	}
	return len(done)
}

// ask is GetUpdates as a cluster at version on channel and arch calls it.
func ask(c *cvo.Client, upstream, channel, arch, version string) cvo.Snapshot {
	desired := arch
	if arch == "multi" {
		// A heterogeneous cluster asks for arch=multi; as it already runs
		// multi, no migration applies.
		desired = cvo.ArchitectureMulti
	}
	return cvo.Canonical(c.GetUpdates(context.Background(), upstream, desired, desired, channel, semver.MustParse(version)))
}

func versionCount(m *manifest.Manifest) int {
	n := 0
	for _, g := range m.Graphs {
		n += len(g.Versions)
	}
	return n
}
