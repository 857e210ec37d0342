package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
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
	b := build(t, &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()}, rollouttest.GraphData(t, rollouttest.Start), graphdata.DefaultOptions())
	plan, err := generator.RolloutPlan(b, rollouttest.Buckets, time.Unix(rollouttest.At, 0))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	m, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(rollouttest.At, 0), NoViewer: true, Rollouts: plan,
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// cloudFrontBuckets runs the rollout function's rolloutBucket in Node on
// each raw query.
func cloudFrontBuckets(t *testing.T, fn string, queries []string) []int {
	t.Helper()
	file := filepath.Join(t.TempDir(), "cloudfront.js")
	if err := os.WriteFile(file, []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(queries)
	cmd := exec.Command(nodeBinary(t), filepath.Join("testdata", "cfbucket.cjs"), file)
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
	fn, err := CloudFrontRolloutFunction(m.Rollouts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CloudFront rollout function: %d bytes of %d", len(fn), CloudFrontMaxSize)
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
	cf := cloudFrontBuckets(t, fn, queries)
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
// bucket's copy exactly where the tree has one, and the object it names
// holds what serve answers.
func TestCloudFrontRolloutFiles(t *testing.T) {
	dir, m := rolloutTree(t)
	fn, err := CloudFrontRolloutFunction(m.Rollouts)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cloudfront.js")
	if err := os.WriteFile(file, []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	goURL := startGo(t, dir)
	var events []cfEvent
	var targets []string
	for _, w := range []string{"0", "0.2", "0.3", "0.35", "0.7", "1"} {
		for _, v := range []string{"", "&version=4.16.0", "&version=4.16.1", "&version=4.16.2", "&version=4.15.0", "&version=9.9.9"} {
			target := "/graph?channel=fast-4.16&rollout_wariness=" + w + v
			targets = append(targets, target)
			events = append(events, newEvent("GET", target))
		}
	}
	results := runCloudFrontFile(t, file, events)
	for i, r := range results {
		res, err := http.Get(goURL + targets[i])
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		uri := r.URI
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(uri)))
		if err != nil {
			if targets[i][len(targets[i])-5:] == "9.9.9" {
				continue // an unknown version: the distribution's 404 → empty graph
			}
			t.Fatalf("%s: the function names %s: %v", targets[i], uri, err)
		}
		if !bytes.Equal(data, body) {
			t.Errorf("%s: the function's %s is not what serve answers", targets[i], uri)
		}
	}
}
