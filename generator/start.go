package generator

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// Started is a generation begun in its store ahead of its graph (Start):
// the store's Begin (for a writer.DirStore: the lock, the spare renamed
// and read) and the reading of the previous generation's index.json run
// in the background while the caller builds, which at real scale takes
// most of a regeneration's fixed cost off the wall clock. None of it
// depends on the graph. Render, given it in RenderOptions.Started,
// commits or aborts it; a caller that does not reach Render (the build
// failed) calls Abort.
type Started struct {
	done chan struct{}
	// Set by the time done is closed.
	staging  writer.Staging
	err      error
	previous *manifest.Manifest

	mu   sync.Mutex
	used bool // taken by Render, or aborted
}

// Start begins a generation in store in the background and returns at
// once; its errors (an output that is not a generation, another run
// holding the lock) are returned by Render. ctx bounds the background
// work; log receives why a previous generation could not be read.
func Start(ctx context.Context, store writer.Store, log *slog.Logger) *Started {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Started{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if s.staging, s.err = store.Begin(ctx); s.err == nil {
			s.previous = readPrevious(ctx, s.staging, log)
		}
	}()
	return s
}

// take waits for the background work and hands the staging over to
// Render, once: it returns the staging (nil with the error of Begin)
// and the previous generation's manifest (nil when there is none to
// read), or ok false when the generation was already taken or aborted.
func (s *Started) take() (staging writer.Staging, previous *manifest.Manifest, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used {
		return nil, nil, false, nil
	}
	s.used = true
	<-s.done
	return s.staging, s.previous, true, s.err
}

// Abort discards the generation unless Render took it: it waits for the
// background work and aborts the staging, so the output is as it was
// and its lock released. Safe to call more than once and after Render
// (deferred by callers).
func (s *Started) Abort() {
	if s == nil {
		return
	}
	staging, _, ok, err := s.take()
	if ok && err == nil {
		_ = staging.Abort()
	}
}

// begin returns the staging Render writes the generation into, and the
// manifest of the generation it replaces (nil when there is none to
// read): those of opts.Started, or begun now in opts.Store.
func begin(ctx context.Context, opts RenderOptions, log *slog.Logger) (writer.Staging, *manifest.Manifest, error) {
	if opts.Started == nil {
		staging, err := opts.Store.Begin(ctx)
		if err != nil {
			return nil, nil, err
		}
		// The previous index.json (5.6 MB at real scale, parsed before
		// any rendering starts) serves the incremental run and the
		// copies; a full run without copies compares every file and
		// reads none of it.
		if opts.Full && !opts.Precompress {
			return staging, nil, nil
		}
		return staging, readPrevious(ctx, staging, log), nil
	}
	staging, previous, ok, err := opts.Started.take()
	if !ok {
		return nil, nil, errors.New("output: the generation started was already rendered or aborted")
	}
	return staging, previous, err
}
