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

// InOrder runs read for i in [0, n) on at most workers goroutines and
// hands each result to add in index order, whatever order they arrive
// in, so that what add builds, and the error reported, do not depend on
// timing. A slot is freed only once its result is added, so at most
// workers results are held at a time however slow one read is. The first
// error in index order, from read or add, stops the rest and is returned;
// reads must return when their ctx ends.
func InOrder[T any](ctx context.Context, workers, n int, read func(ctx context.Context, i int) (T, error), add func(i int, v T) error) error {
	if workers <= 0 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	results := make([]chan result, n)
	for i := range results {
		results[i] = make(chan result, 1) // a read never blocks on an abandoned add
	}
	slots := make(chan struct{}, workers)
	go func() {
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				// Reads not started end with ctx's error; those started
				// report their own, which name what they were reading.
				for ; i < n; i++ {
					results[i] <- result{err: ctx.Err()}
				}
				return
			}
			go func() {
				v, err := read(ctx, i)
				results[i] <- result{v, err}
			}()
		}
	}()
	for i := range n {
		r := <-results[i]
		if r.err != nil {
			return r.err
		}
		if err := add(i, r.v); err != nil {
			return err
		}
		<-slots
	}
	return nil
}
