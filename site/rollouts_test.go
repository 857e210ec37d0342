package site_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/blang/semver/v4"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cvo"
	"github.com/upgraph/upgraph/internal/rollouttest"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/writer"
)

// renderRolloutTree renders the demo with the rollouttest rollout of
// 4.16.2, at rollouttest.At with 10 buckets (1–3 open).
func renderRolloutTree(t testing.TB) string {
	t.Helper()
	return renderRolloutTreeAt(t, rollouttest.At)
}

// renderRolloutTreeAt is renderRolloutTree computed for at.
func renderRolloutTreeAt(t testing.TB, at int64) string {
	t.Helper()
	b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		rollouttest.GraphData(t, upgraph.DemoGraphData(), rollouttest.Start), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := generator.RolloutPlan(b, rollouttest.Buckets, time.Unix(at, 0))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(at, 0), NoViewer: true, Workers: 2, Rollouts: plan,
	}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRolloutCVO is issue 28's real-CVO-style check through serve: at 30 %
// of the rollout, a cluster (the CVO's GetUpdates, its clusterID as id)
// in an open bucket is offered 4.16.2, one in a closed bucket gets the
// same updates without it, and a cluster already on 4.16.2 keeps its own
// updates whatever its bucket. Every answer names its bucket.
func TestRolloutCVO(t *testing.T) {
	dir := renderRolloutTree(t)
	h := newHandler(t, dir, site.Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rng := rand.New(rand.NewPCG(28, 4))
	seen := map[bool]int{}
	for i := 0; i < 200 && (seen[true] < 5 || seen[false] < 5); i++ {
		id := rollout.RandomUUID(rng)
		k := rollout.HashBucket(id, 10)
		open := k <= 3
		seen[open]++
		c := &cvo.Client{ID: id}
		for _, tc := range []struct {
			from     string
			rolling  bool // 4.16.2 is among its updates (edge or conditional)
			keepsOwn bool
		}{
			{"4.16.1", true, false}, {"4.16.0", true, false}, {"4.16.2", false, true},
		} {
			_, updates, conditional, err := c.GetUpdates(context.Background(), srv.URL+"/graph", "amd64", "amd64", "fast-4.16", semver.MustParse(tc.from))
			if err != nil {
				t.Fatalf("id %s from %s: %v", id, tc.from, err)
			}
			var got []string
			for _, u := range updates {
				got = append(got, u.Version)
			}
			for _, cu := range conditional {
				got = append(got, cu.Release.Version+"?")
			}
			offered := slices.Contains(got, "4.16.2") || slices.Contains(got, "4.16.2?")
			if tc.rolling && offered != open {
				t.Errorf("id %s (bucket %d) on %s: updates %v; 4.16.2 offered %v, want %v", id, k, tc.from, got, offered, open)
			}
			if tc.keepsOwn && offered {
				t.Errorf("id %s on 4.16.2 is offered itself: %v", id, got)
			}
		}
		// The answer names its bucket.
		res, _ := get(t, h, "/graph?channel=fast-4.16&id="+id, nil)
		if got := res.Header.Get(site.BucketHeader); got != strconv.Itoa(k) {
			t.Errorf("id %s: %s %q, want %d", id, site.BucketHeader, got, k)
		}
	}
	if seen[true] < 5 || seen[false] < 5 {
		t.Fatalf("too few clusters in open (%d) or closed (%d) buckets", seen[true], seen[false])
	}
	// A cluster on 4.16.2 in a closed bucket keeps the same per-version
	// graph as in an open one (edges out of a rolling release stay).
	closedID := ""
	for closedID == "" {
		if id := rollout.RandomUUID(rng); rollout.HashBucket(id, 10) > 3 {
			closedID = id
		}
	}
	_, open := get(t, h, "/graph?channel=fast-4.16&version=4.16.2&rollout_wariness=0.1", nil)
	_, closed := get(t, h, "/graph?channel=fast-4.16&version=4.16.2&id="+closedID, nil)
	if string(open) != string(closed) {
		t.Errorf("4.16.2's own graph differs between an open and a closed bucket")
	}
}

// TestRolloutCanary: rollout_wariness=0 (the canary, bucket 0) is offered
// a rolling release from its start and not before (issue 28: "offered
// everything that has started"; FCOS offers it before, docs/rollouts.md),
// through serve: before the start its channel graph is that of the most
// wary bucket (no edge into 4.16.2) and its per-version graph of 4.16.1
// lacks 4.16.2; at the start, both are those of bucket 1 (open at the
// start value, 0.1), with 4.16.2, and not those of bucket 10.
func TestRolloutCanary(t *testing.T) {
	for _, tc := range []struct {
		at      int64
		offers  bool
		likeW   string // the wariness whose answer the canary's equals
		unlikeW string // and one whose answer it does not ("": none, every bucket closed)
	}{
		{rollouttest.Start - 60, false, "1", ""},
		{rollouttest.Start, true, "0.1", "1"},
	} {
		h := newHandler(t, renderRolloutTreeAt(t, tc.at), site.Options{})
		identity := http.Header{"Accept-Encoding": {"identity"}}
		for _, base := range []string{"/graph?channel=fast-4.16", "/graph?channel=fast-4.16&version=4.16.1"} {
			res, canary := get(t, h, base+"&rollout_wariness=0.000000", identity)
			if res.StatusCode != 200 || res.Header.Get(site.BucketHeader) != "0" {
				t.Fatalf("at %d, %s: %d, bucket %q; want 200, 0", tc.at, base, res.StatusCode, res.Header.Get(site.BucketHeader))
			}
			_, like := get(t, h, base+"&rollout_wariness="+tc.likeW, identity)
			if string(canary) != string(like) {
				t.Errorf("at %d (start %d), %s: the canary's answer is not that of rollout_wariness=%s", tc.at, rollouttest.Start, base, tc.likeW)
			}
			if tc.unlikeW != "" {
				if _, unlike := get(t, h, base+"&rollout_wariness="+tc.unlikeW, identity); string(canary) == string(unlike) {
					t.Errorf("at %d, %s: the canary's answer is that of rollout_wariness=%s too", tc.at, base, tc.unlikeW)
				}
			}
		}
		_, perVersion := get(t, h, "/graph?channel=fast-4.16&version=4.16.1&rollout_wariness=0", identity)
		if got := containsVersion(perVersion, "4.16.2"); got != tc.offers {
			t.Errorf("at %d (start %d): 4.16.2 in the canary's graph of 4.16.1 %v, want %v", tc.at, rollouttest.Start, got, tc.offers)
		}
	}
}

// TestRolloutBuckets: how the query picks the bucket (rollout.Bucket).
func TestRolloutBuckets(t *testing.T) {
	h := newHandler(t, renderRolloutTree(t), site.Options{})
	for _, tc := range []struct {
		query  string
		bucket string
		offers bool
	}{
		{"", "10", false}, // no id: the fixed, most wary bucket
		{"&rollout_wariness=0", "0", true},
		{"&rollout_wariness=0.300000", "3", true},
		{"&rollout_wariness=0.300001", "4", false},
		{"&rollout_wariness=1", "10", false},
		{"&rollout_wariness=junk", "10", false},
		{"&rollout_wariness=0.2&id=x", "2", true},
		{"&node_uuid=0123456789abcdef0123456789abcdef", strconv.Itoa(rollout.HashBucket("0123456789abcdef0123456789abcdef", 10)), rollout.HashBucket("0123456789abcdef0123456789abcdef", 10) <= 3},
	} {
		for _, target := range []string{"/graph?channel=fast-4.16" + tc.query, "/graph?channel=fast-4.16&version=4.16.1" + tc.query} {
			res, body := get(t, h, target, http.Header{"Accept-Encoding": {"identity"}})
			if res.StatusCode != 200 || res.Header.Get(site.BucketHeader) != tc.bucket {
				t.Errorf("%s: %d, bucket %q, want 200, %s", target, res.StatusCode, res.Header.Get(site.BucketHeader), tc.bucket)
			}
			if got := containsVersion(body, "4.16.2"); target[len(target)-len(tc.query)-6:len(target)-len(tc.query)] == "4.16.1" && got != tc.offers {
				t.Errorf("%s: 4.16.2 in the answer %v, want %v", target, got, tc.offers)
			}
		}
	}
	// A tree without rollouts answers without the header.
	res, _ := get(t, newHandler(t, "", site.Options{}), "/graph?channel=fast-4.16&id=x", nil)
	if v, ok := res.Header[site.BucketHeader]; ok {
		t.Errorf("a tree without rollouts answers %s: %v", site.BucketHeader, v)
	}
}

func containsVersion(body []byte, v string) bool {
	return slices.Contains(splitQuoted(body), v)
}

// splitQuoted lists the JSON strings of body (enough to find a version).
func splitQuoted(body []byte) []string {
	var out []string
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(body) && body[j] != '"' {
			j++
		}
		out = append(out, string(body[i+1:j]))
		i = j
	}
	return out
}
