package service

import (
	"context"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/internal/rollouttest"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// fakeClock is a Clock the test moves: After reports each wait asked for
// on waits and delivers when the test sends on fire.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits chan time.Duration
	fire  chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.waits <- d
	return c.fire
}

func (c *fakeClock) advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// offers reports whether h's graph of channel, for the cluster id,
// has the edge from → to, and the bucket h named.
func offers(t *testing.T, h http.Handler, channel, id, from, to string) (bool, string) {
	t.Helper()
	g := getGraph(t, h, "channel="+channel+"&arch=amd64&id="+id)
	for _, e := range g.Edges {
		if g.Nodes[e[0]].Version == from && g.Nodes[e[1]].Version == to {
			return true, g.header.Get(site.BucketHeader)
		}
	}
	return false, g.header.Get(site.BucketHeader)
}

// TestRolloutOpensByItself is the service end to end with phased
// rollouts (issue 28 item 2): a real registry, graph-data on disk with
// 4.16.2 rolling out, and an injected clock. At T, 30 % into the rollout,
// a cluster in bucket 4 is not offered 4.16.2; the service then asks to
// sleep exactly until bucket 4 opens (sooner than --interval), and when
// the clock gets there it generates again by itself, with no input
// changed, computing the rollouts for the clock's time and not for
// SOURCE_DATE_EPOCH; the cluster's graph then has the edge 4.16.1 →
// 4.16.2, and the next wait is the next bucket's opening.
func TestRolloutOpensByItself(t *testing.T) {
	work := t.TempDir()
	gd := filepath.Join(work, "graph-data")
	rollouttest.WriteGraphData(t, gd, upgraph.DemoGraphData(), rollouttest.Start)
	// SOURCE_DATE_EPOCH fixes generatedAt; the rollouts must still follow
	// the clock.
	t.Setenv("SOURCE_DATE_EPOCH", strconv.Itoa(rollouttest.At))

	const n = rollouttest.Buckets
	r := rollout.Rollout{StartEpoch: rollouttest.Start, StartValue: 0.1, DurationMinutes: rollouttest.Minutes}
	opens4, _ := r.Opens(4, n)
	opens5, _ := r.Opens(5, n)
	rng := rand.New(rand.NewPCG(28, 2))
	id := rollout.RandomUUID(rng)
	for rollout.HashBucket(id, n) != 4 {
		id = rollout.RandomUUID(rng)
	}

	clock := &fakeClock{now: time.Unix(rollouttest.At, 0), waits: make(chan time.Duration, 4), fire: make(chan time.Time)}
	cfg := demoConfig(t, gd, work, 24*time.Hour)
	cfg.RolloutBuckets, cfg.Clock = n, clock
	svc, h, m := newTestService(t, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Loop(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	nextWait := func() time.Duration {
		t.Helper()
		select {
		case d := <-clock.waits:
			return d
		case <-time.After(2 * time.Minute):
			t.Fatal("the service did not ask to wait after its refresh")
		}
		return 0
	}

	// The first refresh generates for T: bucket 4 closed.
	if d, want := nextWait(), time.Duration(opens4-rollouttest.At)*time.Second; d != want {
		t.Fatalf("after the first generation the service waits %v, want %v (bucket 4 opens at %d)", d, want, opens4)
	}
	if got, bucket := offers(t, h, "fast-4.16", id, "4.16.1", "4.16.2"); got || bucket != "4" {
		t.Fatalf("at T, cluster %s: offered 4.16.2 = %v in bucket %q; want not offered, bucket 4", id, got, bucket)
	}
	first := h.Generation().ID

	// The clock reaches the opening; nothing else changes.
	clock.advance(time.Duration(opens4-rollouttest.At) * time.Second)
	clock.fire <- clock.Now()
	if d, want := nextWait(), time.Duration(opens5-opens4)*time.Second; d != want {
		t.Errorf("after the opening the service waits %v, want %v (bucket 5 opens at %d)", d, want, opens5)
	}
	if h.Generation().ID == first {
		t.Fatal("the service did not generate again at the opening")
	}
	if got, bucket := offers(t, h, "fast-4.16", id, "4.16.1", "4.16.2"); !got || bucket != "4" {
		t.Errorf("after bucket 4 opened, cluster %s: offered 4.16.2 = %v in bucket %q; want offered, bucket 4", id, got, bucket)
	}
	idx, err := manifest.Read(cfg.TreeDir())
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Unix(opens4, 0).UTC().Format(time.RFC3339); idx.Rollouts == nil || idx.Rollouts.At != want ||
		idx.Rollouts.Releases[0].OpenBuckets != 4 {
		t.Errorf("index.json rollouts %+v: want at %s, 4 buckets open", idx.Rollouts, want)
	}
	var b strings.Builder
	m.Write(&b)
	if !strings.Contains(b.String(), `upgraph_refresh_total{result="generated"} 2`) {
		t.Errorf("want two generations counted:\n%s", b.String())
	}
}
