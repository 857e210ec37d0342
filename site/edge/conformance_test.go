package edge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cvo"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/manifest"
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
//
// The client runs through nginx for every version. Its request is then
// replayed to the Go handler: GetUpdates is a pure function of the status
// and body it receives, so identical bytes mean an identical answer, and
// the client runs through the Go handler only when the bytes differ. That
// halves the JSON decoding, which dominates the real graph-data's ~40,000
// versions.
func conform(t *testing.T, b *generator.Built) int {
	start := time.Now()
	dir, m := render(t, b)
	ngxURL, goURL := startNginx(t, dir), startGo(t, dir)
	served := time.Now()
	const api = "/api/upgrades_info/v1/graph"

	// One keep-alive transport for all requests. Compression is off: it is
	// transparent to the client (TestNginxGzip covers it) and would double
	// the CPU time of the largest tree.
	transport := &http.Transport{MaxIdleConnsPerHost: 2 * conformWorkers, DisableCompression: true}
	defer transport.CloseIdleConnections()

	jobs := make(chan versionKey)
	var (
		mu                           sync.Mutex
		done                         = map[versionKey]bool{} // each (channel, arch, version) is asked once
		goDigest                     = map[versionKey]string{}
		failures, sameBytes          int
		found, updates, conditionals int
	)
	var wg sync.WaitGroup
	for range conformWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, recGo := &recorder{base: transport}, &recorder{base: transport}
			viaNginx := &cvo.Client{HTTP: &http.Client{Transport: rec}, ID: cvoID}
			viaGo := &cvo.Client{HTTP: &http.Client{Transport: recGo}, ID: cvoID}
			for k := range jobs {
				got := ask(viaNginx, ngxURL+api, k)
				identical, err := rec.replayMatches(goURL)
				want, goBody := got, rec.body
				if !identical {
					want, goBody = ask(viaGo, goURL+api, k), recGo.body
				}
				sum := sha256.Sum256(goBody)
				mu.Lock()
				goDigest[k] = hex.EncodeToString(sum[:])
				if err != nil {
					t.Error(err)
				}
				if identical {
					sameBytes++
				} else if !reflect.DeepEqual(got, want) {
					if failures++; failures <= 5 {
						t.Errorf("%s/%s at %s: through nginx\n%s\nthrough the Go handler\n%s", k.channel, k.arch, k.version, got, want)
					}
				}
				if want.Error == "" {
					found++
				}
				updates += len(want.Updates)
				conditionals += len(want.ConditionalUpdates)
				mu.Unlock()
			}
		}()
	}
	for _, g := range m.Graphs {
		for _, v := range g.Versions {
			k := versionKey{g.Channel, g.Arch, v}
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
	compared := time.Now()
	conformCloudFront(t, dir, m, goURL, goDigest)
	t.Logf("render and serve %s, nginx %s, CloudFront %s", served.Sub(start).Round(time.Millisecond),
		compared.Sub(served).Round(time.Millisecond), time.Since(compared).Round(time.Millisecond))
	// Guard against a vacuous pass: clusters found themselves and got
	// updates somewhere.
	t.Logf("%d versions compared (%d byte-identical): %d found, %d updates, %d conditional updates",
		len(done), sameBytes, found, updates, conditionals)
	if len(done) != versionCount(m) || found == 0 || updates == 0 {
		t.Errorf("vacuous comparison: %d of %d versions, %d found, %d updates", len(done), versionCount(m), found, updates)
	}
	return len(done)
}

// conformCloudFront runs the CloudFront function on every cluster's
// request and checks that the object it names (or, when missing, the
// custom error response's empty graph) gives the cluster the Go handler's
// answer. Objects are compared with the Go handler's bodies by the digests
// in index.json; only when they differ does the client decode both.
func conformCloudFront(t *testing.T, dir string, m *manifest.Manifest, goURL string, goDigest map[versionKey]string) {
	keys := make([]versionKey, 0, len(goDigest))
	events := make([]cfEvent, 0, len(goDigest))
	for k := range goDigest {
		q := url.Values{"arch": {k.arch}, "channel": {k.channel}, "id": {cvoID}, "version": {k.version}}
		keys = append(keys, k)
		events = append(events, newEvent(http.MethodGet, "/api/upgrades_info/v1/graph?"+q.Encode(), "Accept: "+cvo.GraphMediaType))
	}
	emptySum := sha256.Sum256([]byte(manifest.EmptyGraph))
	viaGo := &cvo.Client{HTTP: noGzip, ID: cvoID}
	sameObject, failures := 0, 0
	for i, res := range runCloudFront(t, events) {
		k, object := keys[i], strings.TrimPrefix(res.URI, "/")
		if res.StatusCode != 0 || len(res.Querystring) != 0 {
			t.Fatalf("%v: CloudFront answered %+v", k, res)
		}
		f, ok := m.Files[object]
		digest := f.SHA256
		if !ok { // S3 403/404 → the custom error response
			object, digest = manifest.EmptyGraphPath, hex.EncodeToString(emptySum[:])
		}
		if digest == goDigest[k] {
			sameObject++
			continue
		}
		served, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(object)))
		if err != nil {
			t.Fatal(err)
		}
		desired := desiredArch(k.arch)
		got := cvo.Canonical(cvo.Updates(served, k.channel, desired, desired, semver.MustParse(k.version)))
		if want := ask(viaGo, goURL+"/api/upgrades_info/v1/graph", k); !reflect.DeepEqual(got, want) {
			if failures++; failures <= 5 {
				t.Errorf("%v: CloudFront serves %s, which answers\n%s\nthe Go handler answers\n%s", k, object, got, want)
			}
		}
	}
	if failures > 0 {
		t.Errorf("CloudFront: %d of %d versions differ", failures, len(keys))
	}
	t.Logf("CloudFront: %d of %d requests name the object the Go handler serves", sameObject, len(keys))
}

// recorder passes requests on and keeps the last one with its response,
// so the exchange can be replayed against another server.
type recorder struct {
	base   http.RoundTripper
	req    *http.Request
	status int
	body   []byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.req, r.status, r.body = req, 0, nil
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	r.status, r.body = resp.StatusCode, body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// replayMatches sends the recorded request, unchanged but for the host, to
// base and reports whether the status and body are the same.
func (r *recorder) replayMatches(base string) (bool, error) {
	if r.req == nil {
		return false, errors.New("no request recorded")
	}
	u, err := url.Parse(base)
	if err != nil {
		return false, err
	}
	req := r.req.Clone(context.Background())
	req.URL.Scheme, req.URL.Host, req.Host = u.Scheme, u.Host, ""
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, err
	}
	return resp.StatusCode == r.status && bytes.Equal(body, r.body), nil
}

// versionKey names a cluster: the channel and arch it follows and the
// version it runs.
type versionKey struct{ channel, arch, version string }

// ask is GetUpdates as the cluster k calls it.
func ask(c *cvo.Client, upstream string, k versionKey) cvo.Snapshot {
	desired := desiredArch(k.arch)
	return cvo.Canonical(c.GetUpdates(context.Background(), upstream, desired, desired, k.channel, semver.MustParse(k.version)))
}

// desiredArch is the CVO's desired (and current) architecture for a graph
// arch: a heterogeneous cluster asks for arch=multi and, already running
// multi, migrates nowhere.
func desiredArch(arch string) string {
	if arch == "multi" {
		return cvo.ArchitectureMulti
	}
	return arch
}

func versionCount(m *manifest.Manifest) int {
	n := 0
	for _, g := range m.Graphs {
		n += len(g.Versions)
	}
	return n
}
