// Package parallel runs indexed work on a bounded pool of goroutines.
package parallel

import (
	"context"
	"sync"
)

// Run runs fn for i in [0, n) on workers goroutines; worker is the pool
// slot (0 ≤ worker < workers), for per-worker state. Indices are handed
// out in increasing order. The first error stops the handing out and is
// returned, but every index already handed out still runs, so when fn
// fails for i it has run for every index below i. Without an error, Run
// returns ctx's error if ctx ended before every index was handed out.
func Run(ctx context.Context, workers, n int, fn func(worker, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(w, i); err != nil {
					once.Do(func() { firstErr = err })
					cancel()
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
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
	return ctx.Err()
}
