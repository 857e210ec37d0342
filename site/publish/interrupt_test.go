package publish_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
)

// TestInterruptedPublishConverges interrupts a publish after K writes,
// either by cancelling it or by cutting every connection from then on,
// then runs a publish again (of the same tree, or of another one) and
// expects the bucket to end exactly as if nothing had been interrupted:
// same keys, bytes, headers and metadata, no journal left, index.json no
// longer flagged, and the run after that is a single GET again. The re-runs
// delete, so objects uploaded only by the interrupted run (gen1's second
// signature) must go too.
//
// Connections are lost after the first bookkeeping PUT (the flag on
// index.json, a copy, when one is published: the journal is never
// written), after the journal's, after every PUT but index.json's, and
// after a random number in between; the cancellation comes after a random
// number of uploads (UPGRAPH_TEST_SEED repeats a run).
func TestInterruptedPublishConverges(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("UPGRAPH_TEST_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("UPGRAPH_TEST_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))

	e := newEnv(t)
	gen0 := generate(t, spec{sigs: []string{"sig"}})
	gen1 := generate(t, spec{sigs: []string{"sig", "sig-2"}, edit: setURL("4.16.1+amd64.json", "https://example.com/errata/1")})
	gen2 := generate(t, spec{sigs: []string{"sig"}, edit: func(t testing.TB, fsys fstest.MapFS) {
		setURL("4.16.1+amd64.json", "https://example.com/errata/2")(t, fsys)
		setURL("4.15.2+arm64.json", "https://example.com/errata/2")(t, fsys)
	}})
	tests := []struct {
		name            string
		from, to, rerun string // from "" publishes into an empty bucket
	}{
		{name: "first publish", to: gen0, rerun: gen0},
		{name: "change", from: gen0, to: gen1, rerun: gen1},
		// The case the journal exists for: the re-run's tree equals the
		// published index.json, yet objects hold the interrupted tree.
		{name: "change then revert", from: gen0, to: gen1, rerun: gen0},
		{name: "change then another change", from: gen0, to: gen1, rerun: gen2},
	}
	for _, tt := range tests {
		// The reference: the same publishes, never interrupted. Before its
		// second publish, a dry run of the interrupted one counts its
		// uploads (index.json last).
		ref := e.srv.NewBucket(t)
		if tt.from != "" {
			e.publish(t, e.opts(tt.from, ref))
		}
		probe := e.opts(tt.to, ref)
		probe.DryRun = true
		n := len(e.publish(t, probe).Plan.Uploads)
		e.publish(t, rerunOpts(e, tt.rerun, ref))
		e.checkPublished(t, ref, tt.rerun)
		want := e.state(t, ref)

		type interruption struct {
			name string
			// cancel after this many uploads, or cut every connection
			// after this many PUTs (the journal's included)
			cancelAfter, putsAfter int
		}
		var cases []interruption
		u := 1 + rng.IntN(n-1)
		cases = append(cases, interruption{name: fmt.Sprintf("cancelled after %d of %d uploads", u, n), cancelAfter: u})
		bookkeeping := 1 // the journal's PUT
		if tt.from != "" {
			bookkeeping++ // the flag's, before it
		}
		cuts := []int{1, bookkeeping, bookkeeping + rng.IntN(n), bookkeeping + n - 1}
		slices.Sort(cuts)
		for _, k := range slices.Compact(cuts) {
			cases = append(cases, interruption{name: fmt.Sprintf("connection lost after %d PUTs", k), putsAfter: k})
		}
		for _, ic := range cases {
			t.Run(tt.name+"/"+ic.name, func(t *testing.T) {
				t.Parallel()
				e := e.fork(t)
				bucket := e.srv.NewBucket(t)
				if tt.from != "" {
					e.publish(t, e.opts(tt.from, bucket))
				}
				o := e.opts(tt.to, bucket)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if ic.cancelAfter > 0 {
					o.Progress = func(done, total int) {
						if done == ic.cancelAfter {
							cancel()
						}
					}
				} else {
					e.proxy.Inject(s3test.Fault{Kind: s3test.Reset, Method: "PUT", After: ic.putsAfter})
				}
				rep, err := publish.Publish(ctx, o)
				// A re-run comes later than the store takes to finish the
				// requests a cancelled run abandoned (see Proxy.forward).
				e.proxy.Settle()
				e.proxy.ClearFaults()
				if err == nil {
					t.Fatalf("interrupted publish succeeded: %+v", rep)
				}
				t.Logf("interrupted: %v", err)
				// Every cut comes after the flag, the first write.
				if tt.from != "" && !e.flagged(t, bucket) {
					t.Error("the interrupted publish left index.json unflagged")
				}

				rep = e.publish(t, rerunOpts(e, tt.rerun, bucket))
				if got := e.state(t, bucket); !maps.Equal(got, want) {
					for k, w := range want {
						if g, ok := got[k]; !ok || g != w {
							t.Errorf("%s: %+v, want %+v", k, g, w)
						}
					}
					for k, g := range got {
						if _, ok := want[k]; !ok {
							t.Errorf("%s: %+v, not in the reference", k, g)
						}
					}
				}
				t.Logf("re-run: %s", rep.Plan.Summary())
				if e.flagged(t, bucket) {
					t.Error("index.json still flagged after the re-run")
				}
				if reqs := e.requestsOf(t, e.opts(tt.rerun, bucket)); len(reqs) != 1 {
					t.Errorf("the run after the re-run made %d requests, want 1: %v", len(reqs), reqs)
				}
			})
		}
	}
}

func rerunOpts(e *env, dir, bucket string) publish.Options {
	o := e.opts(dir, bucket)
	o.Delete, o.MaxDeletes = true, -1
	return o
}
