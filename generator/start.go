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
// and read) and the reading of the previous generation's index.json
// (when the run needs it, StartOptions) run in the background while the
// caller builds, which at real scale takes most of a regeneration's
// fixed cost off the wall clock. None of it depends on the graph. Render, given it in RenderOptions.Started,
// commits or aborts it; a caller that does not reach Render (the build
// failed) calls Abort.
type Started struct {
	// read says the previous generation's index.json is read (into
	// previous, nil when there is none), as StartOptions asked.
	read bool
	done chan struct{}
	// Set by the time done is closed.
	staging  writer.Staging
	err      error
	previous *manifest.Manifest

	mu   sync.Mutex
	used bool // taken by Render, or aborted
}

// StartOptions are what Start needs to know of the generation to come.
type StartOptions struct {
	// Full and Precompress are the RenderOptions the generation will be
	// rendered with: a full run without gzip copies compares every file
	// with the previous one and has no use for the previous index.json
	// (5.6 MB at real scale), which is then not read. Render reads it
	// after all if its options need it (they differ from these).
	Full, Precompress bool
	// Logger receives why a previous generation could not be read.
	Logger *slog.Logger
}

// Start begins a generation in store in the background and returns at
// once; its errors (an output that is not a generation, another run
// holding the lock) are returned by Render. ctx bounds the background
// work.
func Start(ctx context.Context, store writer.Store, opts StartOptions) *Started {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Started{done: make(chan struct{}), read: needsPrevious(opts.Full, opts.Precompress)}
	go func() {
		defer close(s.done)
		if s.staging, s.err = store.Begin(ctx); s.err == nil && s.read {
			s.previous = readPrevious(ctx, s.staging, log)
		}
	}()
	return s
}

// needsPrevious says whether a generation rendered with these options
// reads the previous generation's index.json: the incremental run takes
// graphs over on its word and the gzip copies are carried over by it; a
// full run without copies compares every file and reads none of it.
func needsPrevious(full, precompress bool) bool {
	return !full || precompress
}

// take waits for the background work and hands the staging over to
// Render, once: it returns the staging (nil with the error of Begin),
// the previous generation's manifest (nil when there is none to read)
// and whether it was read (StartOptions), or ok false when the
// generation was already taken or aborted.
func (s *Started) take() (staging writer.Staging, previous *manifest.Manifest, read, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used {
		return nil, nil, false, false, nil
	}
	s.used = true
	<-s.done
	return s.staging, s.previous, s.read, true, s.err
}

// Abort discards the generation unless Render took it: it waits for the
// background work and aborts the staging, so the output is as it was
// and its lock released. Safe to call more than once and after Render
// (deferred by callers).
func (s *Started) Abort() {
	if s == nil {
		return
	}
	staging, _, _, ok, err := s.take()
	if ok && err == nil {
		_ = staging.Abort()
	}
}

// begin returns the staging Render writes the generation into, and the
// manifest of the generation it replaces (nil when there is none to
// read, or when opts do not need it): those of opts.Started, or begun
// now in opts.Store.
func begin(ctx context.Context, opts RenderOptions, log *slog.Logger) (writer.Staging, *manifest.Manifest, error) {
	need := needsPrevious(opts.Full, opts.Precompress)
	if opts.Started == nil {
		staging, err := opts.Store.Begin(ctx)
		if err != nil {
			return nil, nil, err
		}
		if !need {
			return staging, nil, nil
		}
		return staging, readPrevious(ctx, staging, log), nil
	}
	staging, previous, read, ok, err := opts.Started.take()
	switch {
	case !ok:
		return nil, nil, errors.New("output: the generation started was already rendered or aborted")
	case err != nil:
		return nil, nil, err
	case need && !read: // Start was told otherwise
		previous = readPrevious(ctx, staging, log)
	}
	return staging, previous, nil
}
