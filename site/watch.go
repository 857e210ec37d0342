package site

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Watch loads the tree at dir and then polls its index.json every
// interval, offering each new generation (Offer) once it loads
// completely. A new tree that fails to load or that the guard refuses is
// logged and skipped, and the previous one keeps being served. It returns
// the first load's error, if any, before watching; and an error for an
// interval that is not positive, before doing anything.
func (h *Handler) Watch(ctx context.Context, dir string, interval time.Duration) error {
	if interval <= 0 {
		return fmt.Errorf("watching %s: the poll interval must be positive, not %v", dir, interval)
	}
	w := &watcher{h: h, dir: dir}
	// A request that finds a file gone looks for a new tree at once, but
	// does not wait for the previous generation to drain.
	reload := func() { w.check(false) }
	h.reload.Store(&reload)
	if err := w.load(); err != nil {
		return err
	}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-h.closing:
				return
			case <-t.C:
				w.check(true)
			}
		}
	}()
	return nil
}

// Rescan looks at the watched directory now rather than at the next
// poll, and returns once a new tree found there is served, refused or
// failed to load: a process that has just written a generation serves it
// at once. Without Watch it does nothing.
func (h *Handler) Rescan() {
	if f := h.reloader(); f != nil {
		f()
	}
}

type watcher struct {
	h    *Handler
	dir  string
	seen os.FileInfo // index.json of the last attempt, loaded or not
}

// check loads the tree again if index.json is not the one last seen. The
// output is swapped in whole (rename), so a different index.json file means
// a different tree. With drain, it first waits for the generation retired
// last to finish its requests.
func (w *watcher) check(drain bool) {
	// At most two snapshots at a time: the one served, and the previous
	// one while its last requests finish or the next one while it loads.
	// Waited for before the lock, so that a request that found a file gone
	// and looks for a new tree (check(false)) never waits on a drain.
	if drain {
		w.h.awaitDrained()
	}
	w.h.reloadMu.Lock()
	defer w.h.reloadMu.Unlock()
	st, err := os.Stat(filepath.Join(w.dir, "index.json"))
	if err != nil || (w.seen != nil && os.SameFile(st, w.seen) && st.ModTime().Equal(w.seen.ModTime()) && st.Size() == w.seen.Size()) {
		return
	}
	if err := w.loadLocked(st); err != nil && w.h.Generation() != nil {
		w.h.log.Error("new generation not loaded; still serving the previous one", "dir", w.dir, "err", err)
	}
}

// load loads the first generation; its error is the caller's to report.
func (w *watcher) load() error {
	w.h.reloadMu.Lock()
	defer w.h.reloadMu.Unlock()
	st, _ := os.Stat(filepath.Join(w.dir, "index.json"))
	if err := w.loadLocked(st); err != nil {
		return fmt.Errorf("loading the tree at %s: %w", w.dir, err)
	}
	return nil
}

func (w *watcher) loadLocked(st os.FileInfo) error {
	if w.h.isClosed() {
		return nil
	}
	w.seen = st
	g, err := Load(w.dir, w.h.log)
	if err != nil {
		w.h.metrics.reload("error")
		return err
	}
	// Even an identical generation is taken: it comes with a fresh snapshot
	// of the tree now in place, and the cache is keyed by content anyway.
	first := w.h.Generation() == nil
	if err := w.h.Offer(g); err != nil {
		w.h.metrics.reload("refused")
		if first {
			return err // only Options.Trust refuses a first generation: nothing to serve
		}
		return nil // Offer logged what would disappear
	}
	w.h.metrics.reload("ok")
	w.h.log.Info("serving generation", "dir", w.dir, "id", g.ID, "graphs", len(g.Manifest.Graphs), "generatedAt", g.Manifest.GeneratedAt)
	return nil
}

// AccessLog logs one structured line per request.
func AccessLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		log.Info("request", "method", r.Method, "uri", r.URL.RequestURI(), "status", sw.status,
			"duration", time.Since(start), "remote", r.RemoteAddr, "userAgent", r.UserAgent())
	})
}
