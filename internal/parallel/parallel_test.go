package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunEveryIndexOnce(t *testing.T) {
	const n = 1000
	var seen [n]atomic.Int32
	var badWorker atomic.Bool
	if err := Run(context.Background(), 4, n, func(_ context.Context, w, i int) error {
		if w < 0 || w >= 4 {
			badWorker.Store(true)
		}
		seen[i].Add(1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if badWorker.Load() {
		t.Error("worker slot out of range")
	}
	for i := range seen {
		if c := seen[i].Load(); c != 1 {
			t.Fatalf("index %d ran %d times", i, c)
		}
	}
}

// TestRunStopsAtAnError: what callers rely on to report the lowest
// failing index deterministically.
func TestRunStopsAtAnError(t *testing.T) {
	const n, failAt = 10_000, 37
	var mu sync.Mutex
	ran := map[int]bool{}
	boom := errors.New("boom")
	err := Run(context.Background(), 3, n, func(_ context.Context, _, i int) error {
		mu.Lock()
		ran[i] = true
		mu.Unlock()
		if i == failAt {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the error", err)
	}
	for i := range failAt {
		if !ran[i] {
			t.Errorf("index %d below the failing one did not run", i)
		}
	}
	if len(ran) == n {
		t.Error("every index ran: the error did not stop the handing out")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, 2, 100, func(context.Context, int, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

// TestInOrder: results reach add in index order whatever order reads end
// in, at most workers are held at a time, and the first error in index
// order is the one returned.
func TestInOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		failAt  int // -1: none
		workers int
	}{
		{"all", 50, -1, 4},
		{"one worker", 10, -1, 1},
		{"error", 50, 17, 4},
		{"error first", 5, 0, 3},
		{"none", 0, -1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var held, most atomic.Int32
			var got []int
			err := InOrder(t.Context(), tc.workers, tc.n, func(_ context.Context, i int) (int, error) {
				if h := held.Add(1); h > most.Load() {
					most.Store(h)
				}
				time.Sleep(time.Duration((i*7)%5) * time.Millisecond) // later indices often finish first
				if i == tc.failAt {
					return 0, fmt.Errorf("read %d", i)
				}
				return i * i, nil
			}, func(i, v int) error {
				held.Add(-1)
				if v != i*i {
					t.Errorf("add(%d, %d)", i, v)
				}
				got = append(got, i)
				return nil
			})
			want := tc.n
			if tc.failAt >= 0 {
				want = tc.failAt
				if err == nil || err.Error() != fmt.Sprintf("read %d", tc.failAt) {
					t.Errorf("error %v, want read %d", err, tc.failAt)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if len(got) != want {
				t.Fatalf("added %d results, want %d", len(got), want)
			}
			for i, v := range got {
				if v != i {
					t.Fatalf("added %v, not in index order", got)
				}
			}
			if m := most.Load(); int(m) > max(tc.workers, 1) {
				t.Errorf("%d results held at once, want at most %d", m, tc.workers)
			}
		})
	}
}
