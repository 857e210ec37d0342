package parallel

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
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
