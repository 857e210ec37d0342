package mirror

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// answer1 serves one release in the requested channel, with metadata
// that can be varied per channel.
func answer1(w http.ResponseWriter, r *http.Request, url string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"version":1,"nodes":[{"version":"4.16.0","payload":"quay.io/x@sha256:0","metadata":{"io.openshift.upgrades.graph.release.channels":"fast-4.16,stable-4.16","url":%q}}],"edges":[],"conditionalEdges":[]}`, url)
}

// calls records when each request arrived.
type calls struct {
	mu    sync.Mutex
	times []time.Time
}

func (c *calls) add() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.times = append(c.times, time.Now())
	return len(c.times)
}

func (c *calls) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.times)
}

func TestFetchFaults(t *testing.T) {
	tests := []struct {
		name     string
		channels []string
		// handle answers the n-th request (from 1).
		handle  func(n int, w http.ResponseWriter, r *http.Request)
		timeout time.Duration
		// wantErr are substrings of the error; none: success.
		wantErr []string
		wantIs  error
		calls   int
		check   func(t *testing.T, c *calls)
	}{{
		name: "503 twice then OK",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			if n <= 2 {
				http.Error(w, "warming up", http.StatusServiceUnavailable)
				return
			}
			answer1(w, r, "u")
		},
		calls: 3,
	}, {
		name: "429 honours Retry-After",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			answer1(w, r, "u")
		},
		calls: 2,
		check: func(t *testing.T, c *calls) {
			// The backoff is 10ms, so only Retry-After explains a second's wait.
			if gap := c.times[1].Sub(c.times[0]); gap < time.Second {
				t.Errorf("retried after %v, Retry-After asked for 1s", gap)
			}
		},
	}, {
		name: "persistent 500",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		},
		wantErr: []string{"channel stable-4.16, arch amd64", "GET http://127.0.0.1:", "?token=t&channel=stable-4.16&arch=amd64", "500 Internal Server Error", `"boom"`, "after 3 attempts"},
		calls:   3,
	}, {
		name: "upstream JSON error is reported, not retried",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"kind":"invalid_params","value":"invalid client parameters: channel 'x' does not match regex"}`)
		},
		wantErr: []string{"400 Bad Request: invalid_params: invalid client parameters: channel 'x' does not match regex", "channel=stable-4.16"},
		calls:   1,
	}, {
		name: "upstream failing its own fetch",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"kind":"failed_upstream_fetch","value":"failed to fetch upstream graph: 503 Service Unavailable"}`)
		},
		wantErr: []string{"failed_upstream_fetch: failed to fetch upstream graph: 503 Service Unavailable", "channel stable-4.16"},
		calls:   3,
	}, {
		name: "bad JSON names the line and column",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "{\"version\":1,\n\"nodes\":[{\"version\":4}],\"edges\":[]}")
		},
		wantErr: []string{"channel=stable-4.16&arch=amd64: line 2, column 21", "channel stable-4.16, arch amd64"},
		calls:   1,
	}, {
		name: "a graph-builder's graph is refused",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"nodes":[],"edges":[]}`)
		},
		wantErr: []string{`no "version" key`},
		calls:   1,
	}, {
		name:     "conflicting metadata across channels",
		channels: []string{"fast-4.16", "stable-4.16"},
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			answer1(w, r, "errata for "+r.URL.Query().Get("channel"))
		},
		wantErr: []string{"release 4.16.0 (arch amd64) differs between channel fast-4.16 and channel stable-4.16", `metadata "url" "errata for fast-4.16" vs "errata for stable-4.16"`},
		wantIs:  ErrInconsistent,
		calls:   2,
	}, {
		name: "context deadline stops a hanging endpoint",
		handle: func(n int, w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		},
		timeout: 200 * time.Millisecond,
		wantErr: []string{"channel stable-4.16, arch amd64"},
		wantIs:  context.DeadlineExceeded,
		calls:   1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &calls{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := c.add()
				if got := r.Header.Get("Accept"); got != "application/json" {
					t.Errorf("Accept: %q", got)
				}
				if q := r.URL.Query(); q.Get("token") != "t" || q.Get("arch") != "amd64" {
					t.Errorf("query %q lost the endpoint's own parameters or the arch", r.URL.RawQuery)
				}
				tc.handle(n, w, r)
			}))
			defer srv.Close()
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			channels := tc.channels
			if channels == nil {
				channels = []string{"stable-4.16"}
			}
			g, err := Fetch(ctx, Options{
				URL: srv.URL + "/graph?token=t", Channels: channels, Arches: []string{"amd64"},
				Backoff: 10 * time.Millisecond, Workers: 1,
			})
			switch {
			case len(tc.wantErr) == 0 && err != nil:
				t.Fatal(err)
			case len(tc.wantErr) == 0:
				if _, ok := g.Lookup("4.16.0+amd64"); !ok || g.Len() != 1 {
					t.Errorf("got %d releases, want 4.16.0+amd64", g.Len())
				}
			case err == nil:
				t.Fatalf("no error, want one mentioning %q", tc.wantErr)
			default:
				t.Logf("error: %v", err)
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("error %q is not %v", err, tc.wantIs)
				}
			}
			if got := c.count(); got != tc.calls {
				t.Errorf("%d requests, want %d", got, tc.calls)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
		})
	}
}
