package service

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/guard"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Serving is how the service answers: serve's options.
type Serving struct {
	Listen   string   // HOST:PORT
	Prefixes []string // path prefixes (nil: serve's defaults)
	// CacheBytes is the file content kept in memory; 0 keeps none.
	CacheBytes int64
}

// Check refuses, before anything is started, a configuration the service
// cannot run: a non-positive Interval, or a DIR/tree that is neither new,
// empty nor a generation (generate's rule for --out) unless Force.
func (cfg *Config) Check() error {
	if cfg.Interval <= 0 {
		return fmt.Errorf("--interval %v: want a positive duration", cfg.Interval)
	}
	if _, err := guard.PreviousTree(cfg.TreeDir()); err != nil && !cfg.Force {
		return fmt.Errorf("--data %s: %s: %w", cfg.Data, TreeDir, err)
	}
	return nil
}

// Process is a started service: listening on Listener with Handler, and
// refreshing in the background until the context given to Start ends.
type Process struct {
	Handler  *site.Handler
	Listener net.Listener
	done     chan struct{}
}

// Start makes DIR/cache, listens on sv.Listen, serves the generation a
// previous run left in DIR/tree at once (a restart does not wait for a
// scrape; one that does not load is logged and replaced by the first
// refresh), and runs Loop until ctx ends. The caller serves Handler on
// Listener (site.Run) and then calls Wait.
func Start(ctx context.Context, cfg Config, sv Serving) (*Process, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.CacheDir(), 0o755); err != nil {
		return nil, fmt.Errorf("--data %s: %w", cfg.Data, err)
	}
	ln, err := net.Listen("tcp", sv.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", sv.Listen, err)
	}
	cacheBytes := sv.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = -1 // site.Options: none
	}
	m := NewMetrics()
	var shrink *site.Guard
	if !cfg.Force {
		shrink = &site.Guard{ShrinkThreshold: cfg.ShrinkThreshold}
	}
	h := site.NewHandler(site.Options{Prefixes: sv.Prefixes, CacheBytes: cacheBytes, VerifyAhead: true,
		Guard: shrink, Logger: cfg.Logger, Metrics: m.Write})
	svc, err := New(cfg, h, m)
	if err != nil {
		ln.Close()
		h.Close()
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(cfg.TreeDir(), manifest.FileName)); err == nil {
		if err := svc.Watch(ctx); err != nil {
			cfg.Logger.Error("the generation in --data does not load; waiting for the first refresh", "dir", cfg.TreeDir(), "err", err)
		}
	}
	p := &Process{Handler: h, Listener: ln, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		svc.Loop(ctx)
	}()
	return p, nil
}

// Wait returns once the refresh loop has ended (its context ended).
func (p *Process) Wait() { <-p.done }

// SetMemoryLimit sets the process's Go memory limit to MemoryLimit of
// cacheBytes unless GOMEMLIMIT is set: a process-wide setting, for the
// command to apply.
func SetMemoryLimit(cacheBytes int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit(cacheBytes, CgroupMemoryMax))
	}
}
