// Package parallel runs indexed work on a bounded pool of goroutines.
package parallel

import (
	"context"
	"sync"
)

// Run runs fn for i in [0, n) on at most workers goroutines; worker is
// the pool slot (0 ≤ worker < workers), for per-worker state, and ctx is
// cancelled once any call fails, so calls in flight can stop early.
// Indices are handed out in increasing order. The first error stops the
// handing out and is returned, but every index already handed out still
// runs, so when fn fails for i it has run for every index below i.
// Without an error, Run returns the cause of ctx's end if it ended before
// every index was handed out.
func Run(ctx context.Context, workers, n int, fn func(ctx context.Context, worker, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for w := range max(1, min(workers, n)) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, w, i); err != nil {
					once.Do(func() { firstErr = err })
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return context.Cause(ctx)
}
