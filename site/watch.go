package site

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Watch loads the tree at dir and then polls its index.json every
// interval, serving each new generation once it loads completely. A new
// tree that fails to load is logged and skipped, and the previous one keeps
// being served. It returns the first load's error, if any, before watching.
func (h *Handler) Watch(ctx context.Context, dir string, interval time.Duration) error {
	w := &watcher{h: h, dir: dir}
	check := w.check
	h.reload.Store(&check)
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
			case <-t.C:
				w.check()
			}
		}
	}()
	return nil
}

type watcher struct {
	h    *Handler
	dir  string
	seen os.FileInfo // index.json of the last attempt, loaded or not
}

// check loads the tree again if index.json is not the one last seen. The
// output is swapped in whole (rename), so a different index.json file means
// a different tree.
func (w *watcher) check() {
	w.h.reloadMu.Lock()
	defer w.h.reloadMu.Unlock()
	st, err := os.Stat(filepath.Join(w.dir, "index.json"))
	if err != nil || (w.seen != nil && os.SameFile(st, w.seen) && st.ModTime().Equal(w.seen.ModTime()) && st.Size() == w.seen.Size()) {
		return
	}
	_ = w.loadLocked(st)
}

func (w *watcher) load() error {
	w.h.reloadMu.Lock()
	defer w.h.reloadMu.Unlock()
	st, _ := os.Stat(filepath.Join(w.dir, "index.json"))
	return w.loadLocked(st)
}

func (w *watcher) loadLocked(st os.FileInfo) error {
	w.seen = st
	g, err := Load(w.dir, w.h.log)
	if err != nil {
		w.h.metrics.reload("error")
		w.h.log.Error("new generation not loaded; still serving the previous one", "dir", w.dir, "err", err)
		return err
	}
	// Even an identical generation is taken: it comes with a fresh snapshot
	// of the tree now in place, and the cache is keyed by content anyway.
	w.h.SetGeneration(g)
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
