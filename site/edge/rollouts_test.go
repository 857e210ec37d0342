package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/rollouttest"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// rolloutTree renders the demo with the rollouttest rollout of 4.16.2, at
// rollouttest.At (buckets 1–3 of 10 offered it).
func rolloutTree(t testing.TB) (string, *manifest.Manifest) {
	t.Helper()
	b := build(t, &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()}, rollouttest.GraphData(t, upgraph.DemoGraphData(), rollouttest.Start), graphdata.DefaultOptions())
	plan, err := generator.RolloutPlan(b, rollouttest.Buckets, time.Unix(rollouttest.At, 0))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	m, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(rollouttest.At, 0), NoViewer: true, Rollouts: plan, Precompress: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// rolloutFunction writes the rollout function of the tree's N and its
// KeyValueStore import file, as upgraph edge cloudfront --root --kvs
// does, and returns their paths.
func rolloutFunction(t *testing.T, ro *manifest.Rollouts) (fn, kvs string) {
	t.Helper()
	src, err := CloudFrontRolloutFunction(ro.Buckets)
	if err != nil {
		t.Fatal(err)
	}
	store, err := CloudFrontRolloutKVS(ro)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CloudFront rollout function: %d bytes of %d; KeyValueStore import file: %d entries, %d bytes of %d",
		len(src), CloudFrontMaxSize, len(ro.Variants), len(store), KVSMaxSize)
	dir := t.TempDir()
	fn, kvs = filepath.Join(dir, "cloudfront.js"), filepath.Join(dir, "cloudfront-kvs.json")
	if err := os.WriteFile(fn, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kvs, store, 0o644); err != nil {
		t.Fatal(err)
	}
	return fn, kvs
}

// cloudFrontBuckets runs the rollout function's rolloutBucket in Node on
// each raw query.
func cloudFrontBuckets(t *testing.T, fn, kvs string, queries []string) []int {
	t.Helper()
	in, _ := json.Marshal(queries)
	cmd := exec.Command(nodeBinary(t), filepath.Join("testdata", "cfbucket.cjs"), fn, kvs)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cfbucket: %v\n%s", err, stderr.Bytes())
	}
	var ks []int
	if err := json.Unmarshal(out, &ks); err != nil || len(ks) != len(queries) {
		t.Fatalf("cfbucket: %d buckets for %d queries: %v", len(ks), len(queries), err)
	}
	return ks
}

// TestRolloutEdgesAgree is issue 28's check that the three edges put a
// cluster in the same bucket: for 10,000 random cluster ids (and the
// rollout_wariness and node_uuid cases), upgraph serve, a real nginx
// running the generated configuration (split_clients itself) and the
// CloudFront function in Node give the bucket rollout.Bucket gives, and
// nginx, serve and the file the function rewrites to answer the same
// bytes.
func TestRolloutEdgesAgree(t *testing.T) {
	dir, m := rolloutTree(t)
	fn, kvs := rolloutFunction(t, m.Rollouts)
	goURL, nginxURL := startGo(t, dir), startNginx(t, dir)
	rng := rand.New(rand.NewPCG(28, 10000))
	var queries []string
	for range 10000 {
		queries = append(queries, "channel=fast-4.16&id="+rollout.RandomUUID(rng))
	}
	for _, w := range []string{"0", "0.000000", "-1", "0.000001", "0.1", "0.100000", "0.100001", "0.25", ".3", "+0.35", "%2B0.35", "%2b1", "0.999999", "1", "1.000000", "2", "00.5", "5.",
		"", ".", "-", "abc", "1e-1", "NaN", "0.5.5", "0x1"} {
		queries = append(queries, "channel=fast-4.16&id=cluster&rollout_wariness="+w, "channel=fast-4.16&rollout_wariness="+w)
	}
	queries = append(queries, "channel=fast-4.16", "channel=fast-4.16&id=", "channel=fast-4.16&node_uuid=0123456789abcdef0123456789abcdef",
		"channel=fast-4.16&id=a&id=b", "channel=fast-4.16&version=4.16.1&id=x", "channel=fast-4.16&version=4.16.0&rollout_wariness=0.9")
	cf := cloudFrontBuckets(t, fn, kvs, queries)
	c := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
	t.Cleanup(c.CloseIdleConnections)
	counts := make([]int, 11)
	for i, raw := range queries {
		q := goQuery(raw)
		want := rollout.Bucket(q, 10)
		counts[want]++
		var bodies [2][]byte
		for j, base := range []string{goURL, nginxURL} {
			res, err := c.Get(base + "/graph?" + raw)
			if err != nil {
				t.Fatal(err)
			}
			bodies[j], _ = io.ReadAll(res.Body)
			res.Body.Close()
			if got := res.Header.Get(site.BucketHeader); res.StatusCode != 200 || got != strconv.Itoa(want) {
				t.Fatalf("%s from %s: %d, bucket %q, want %d", raw, []string{"serve", "nginx"}[j], res.StatusCode, got, want)
			}
		}
		if !bytes.Equal(bodies[0], bodies[1]) {
			t.Fatalf("%s: serve and nginx answer differently", raw)
		}
		if cf[i] != want {
			t.Fatalf("%s: CloudFront bucket %d, want %d", raw, cf[i], want)
		}
	}
	t.Logf("buckets of %d queries: %v", len(queries), counts)
}

// goQuery is what site reads of a raw query (decoded, the last of
// repeated parameters).
func goQuery(raw string) rollout.Query {
	var q rollout.Query
	for _, pair := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(pair, "=")
		v, _ = url.QueryUnescape(v)
		switch k {
		case "id":
			q.ID = v
		case "node_uuid":
			q.NodeUUID = v
		case "rollout_wariness":
			q.Wariness, q.HasWariness = v, true
		}
	}
	return q
}

// TestCloudFrontRolloutFiles: the function rewrites a request to the
// bucket's copy exactly where the tree has one (the KeyValueStore's
// entries), with and without gzip, and the object it names holds the
// bytes serve answers; a file no bucket has a copy of is read without
// its bucket.
func TestCloudFrontRolloutFiles(t *testing.T) {
	dir, m := rolloutTree(t)
	fn, kvs := rolloutFunction(t, m.Rollouts)
	goURL := startGo(t, dir)
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	t.Cleanup(c.CloseIdleConnections)
	var events []cfEvent
	type target struct {
		url    string
		gzip   bool
		bucket int
	}
	var targets []target
	for _, w := range []string{"0", "0.2", "0.3", "0.35", "0.7", "1"} {
		for _, v := range []string{"", "&version=4.16.0", "&version=4.16.1", "&version=4.16.2", "&version=4.15.0", "&version=9.9.9"} {
			for _, gz := range []bool{false, true} {
				u := "/graph?channel=fast-4.16&rollout_wariness=" + w + v
				k, _ := rollout.WarinessBucket(w, 10)
				targets = append(targets, target{u, gz, k})
				if gz {
					events = append(events, newEvent("GET", u, "Accept-Encoding: gzip"))
				} else {
					events = append(events, newEvent("GET", u))
				}
			}
		}
	}
	results := runCloudFrontFile(t, fn, events, kvs)
	copies := 0
	for i, r := range results {
		tg := targets[i]
		k := tg.bucket
		name := strings.TrimSuffix(strings.TrimPrefix(r.URI, "/rollout/"+strconv.Itoa(k)), ".gz")
		if strings.HasPrefix(r.URI, "/rollout/") {
			copies++
			if !slices.Contains(m.Rollouts.Variants[strings.TrimPrefix(name, "/")], k) {
				t.Errorf("%s: the function names %s, a copy the tree does not list for bucket %d", tg.url, r.URI, k)
			}
		} else if slices.Contains(m.Rollouts.Variants[strings.TrimPrefix(name, "/")], k) {
			t.Errorf("%s: the function names %s, not bucket %d's copy", tg.url, r.URI, k)
		}
		if tg.gzip != strings.HasSuffix(r.URI, ".gz") {
			t.Errorf("%s (gzip %v): the function names %s", tg.url, tg.gzip, r.URI)
		}
		header := []string{}
		if tg.gzip {
			header = append(header, "Accept-Encoding: gzip")
		}
		res := get(t, c, "GET", goURL+tg.url, header...)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URI)))
		if err != nil {
			if strings.HasSuffix(tg.url, "9.9.9") {
				continue // an unknown version: the distribution's 404 → empty graph
			}
			t.Fatalf("%s: the function names %s: %v", tg.url, r.URI, err)
		}
		if !bytes.Equal(data, body) {
			t.Errorf("%s (gzip %v): the function's %s is not what serve answers", tg.url, tg.gzip, r.URI)
		}
	}
	if copies == 0 {
		t.Fatal("the function named no bucket's copy")
	}
}

// TestCloudFrontRolloutKVS: the import file is CloudFront's format with a
// key per graph file that has copies, its buckets as "K-" or a list, in
// key order; entries or files past the store's limits are refused,
// naming the file; the function does not depend on the tree.
func TestCloudFrontRolloutKVS(t *testing.T) {
	ro := &manifest.Rollouts{Buckets: 10, Variants: map[string][]int{
		"graph/amd64/fast-4.16.json":        {4, 5, 6, 7, 8, 9, 10},
		"graph/amd64/fast-4.16/4.16.1.json": {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		"graph/arm64/x.json":                {2, 5},
		"graph/amd64/stable-4.16.json.gz":   {4}, // not a graph file's name: no key
	}}
	got, err := CloudFrontRolloutKVS(ro)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":[{"key":"graph/amd64/fast-4.16.json","value":"4-"},{"key":"graph/amd64/fast-4.16/4.16.1.json","value":"0-"},{"key":"graph/arm64/x.json","value":"2,5"}]}` + "\n"
	if string(got) != want {
		t.Errorf("import file\n%s\nwant\n%s", got, want)
	}
	long := "graph/amd64/" + strings.Repeat("c", KVSMaxKey) + ".json"
	many := &manifest.Rollouts{Buckets: 10000, Variants: map[string][]int{"graph/amd64/c.json": {}}}
	for k := 1; k < 10000; k += 2 {
		many.Variants["graph/amd64/c.json"] = append(many.Variants["graph/amd64/c.json"], k)
	}
	big := &manifest.Rollouts{Buckets: 10, Variants: map[string][]int{}}
	for i := range 100000 {
		big.Variants[fmt.Sprintf("graph/amd64/stable-4.%d/4.%d.%d.json", i%30, i%30, i)] = []int{1, 3}
	}
	for _, tc := range []struct {
		name string
		ro   *manifest.Rollouts
		want string
	}{
		{"long key", &manifest.Rollouts{Buckets: 10, Variants: map[string][]int{long: {3}}}, long + ": a path of"},
		{"long value", many, "graph/amd64/c.json: its buckets (5000)"},
		{"large store", big, "more than CloudFront's 5242880"},
	} {
		if _, err := CloudFrontRolloutKVS(tc.ro); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	a, _ := CloudFrontRolloutFunction(10)
	b, _ := CloudFrontRolloutFunction(10)
	if a != b || len(a) > CloudFrontMaxSize || !strings.HasPrefix(a, "import cf from 'cloudfront';\n") {
		t.Errorf("function of %d bytes, deterministic %v, import first %v", len(a), a == b, strings.HasPrefix(a, "import cf"))
	}
	if _, err := CloudFrontRolloutFunction(3); err == nil {
		t.Error("3 buckets (not a divisor of 10000) accepted")
	}
}
