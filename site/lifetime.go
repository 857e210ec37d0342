package site

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/sign"
)

// A generation lives while it is served and while requests that started
// on it are answered: each request holds a reference (acquire, release)
// and a retired generation closes, removing its snapshot, as soon as the
// last one ends. A server therefore keeps the snapshot it serves and,
// for the time a request takes, the one it served before.

// drainGrace bounds how long a retired generation waits for its last
// requests: one whose client stopped reading would otherwise keep its
// snapshot, and the disk it holds, for as long as the connection lives.
const drainGrace = time.Minute

// Guard refuses a new generation that would strand clusters (Offer).
type Guard struct {
	// ShrinkThreshold is the fraction of the served generation's
	// releases, channels or per-version graphs a new one may drop
	// (manifest.CheckShrink); an architecture may never go, and an empty
	// generation (manifest.CheckNotEmpty) never replaces one.
	ShrinkThreshold float64
}

// acquire returns the generation being served with a reference taken for
// a request, or nil when there is none.
func (h *Handler) acquire() *Generation {
	for {
		g := h.gen.Load()
		if g == nil || g.acquire() {
			return g
		}
		if h.gen.Load() == g {
			return nil // closed by its owner while still set: nothing to serve
		}
		// Retired and closed between the two loads: its successor is set.
	}
}

// SetGeneration starts serving g, which the handler owns from then on.
// The previous generation is closed once its last request is answered
// (at the latest drainGrace later). After Close, g is closed at once.
func (h *Handler) SetGeneration(g *Generation) {
	h.lifeMu.Lock()
	if h.closed {
		h.lifeMu.Unlock()
		if g != nil {
			g.Close()
		}
		return
	}
	cur := h.gen.Load()
	if cur == g {
		h.lifeMu.Unlock()
		return
	}
	if g != nil && cur != nil {
		g.inheritStamps(cur)
	}
	if g != nil {
		g.sharedMu.Lock()
		g.budget = h.sharedFiles // before any request can reach g
		g.sharedMu.Unlock()
	}
	h.gen.Store(g)
	if cur != nil {
		h.draining = slices.DeleteFunc(h.draining, (*Generation).closed)
		h.draining = append(h.draining, cur)
		cur.forced.Store(time.AfterFunc(drainGrace, func() { cur.Close() }))
		cur.release() // the reference held while it was served
	}
	h.lifeMu.Unlock()
	if h.opts.VerifyAhead && g != nil {
		go h.verifyAhead(g)
	}
}

// Offer serves g unless Admit refuses it; a refused g is closed, and
// Admit's error returned.
func (h *Handler) Offer(g *Generation) error {
	if err := h.trust(g); err != nil {
		g.Close()
		return err
	}
	if err := h.Admit(g.Manifest, g.ID); err != nil {
		g.Close()
		return err
	}
	h.SetGeneration(g)
	return nil
}

// Admit reports whether a new generation, of manifest next (identified by
// id in logs), may replace the one served: with Options.Guard, it must
// not be empty nor drop more of it than the guard allows. A refusal is
// counted and logged with what would disappear, and its error (wrapping
// manifest.ErrShrink or manifest.ErrEmpty) returned. The first
// generation is never refused, nor any without a guard; an empty one is
// admitted with a warning, as clusters then get what there is. A loader
// may call it before it fetches the files (Offer calls it again).
func (h *Handler) Admit(next *manifest.Manifest, id string) error {
	cur := h.gen.Load()
	empty := manifest.CheckNotEmpty(next)
	if cur == nil || h.opts.Guard == nil {
		if empty != nil {
			h.log.Warn("serving an empty generation", "id", id, "err", empty)
		}
		return nil
	}
	err := empty
	if err == nil {
		err = manifest.CheckShrink(cur.Manifest, next, h.opts.Guard.ShrinkThreshold)
	}
	if err != nil && cur.snapshot == "" {
		// Served in place (no snapshot could be taken): its files went
		// with the tree the new one replaced, so it cannot be kept.
		h.log.Error("new generation admitted despite the shrink guard: the previous one was served in place and its files are gone",
			"id", id, "served", cur.ID, "err", err)
		return nil
	}
	if err != nil {
		h.metrics.refuse("shrink")
		h.log.Error("new generation refused; still serving the previous one (a deliberate shrink needs --force or a restart)",
			"id", id, "served", cur.ID, "err", err)
	}
	return err
}

// awaitDrained waits until no retired generation holds a snapshot: a
// loader calls it before taking the next one, so that a server never
// holds more than two (the one served, and the one retired or the one
// being loaded). It returns early once the handler is closing.
func (h *Handler) awaitDrained() {
	h.lifeMu.Lock()
	var wait []*Generation
	for _, g := range h.draining {
		if g.snapshot != "" {
			wait = append(wait, g)
		}
	}
	h.lifeMu.Unlock()
	for _, g := range wait {
		select {
		case <-g.done:
		case <-h.closing:
			return
		}
	}
}

// Close stops serving: /readyz and graph requests answer 503, a load in
// progress is abandoned, and every generation the handler holds is closed
// now, its snapshot removed. Call it after the HTTP server's Shutdown,
// when no request is left; one still running fails.
func (h *Handler) Close() error {
	h.lifeMu.Lock()
	if !h.closed {
		h.closed = true
		close(h.closing)
	}
	gens := append(h.draining, h.gen.Swap(nil))
	h.draining = nil
	h.lifeMu.Unlock()
	// A load under way finishes before this returns: SetGeneration then
	// closes what it loaded, and nothing is loaded after.
	h.reloadMu.Lock()
	h.reloadMu.Unlock()
	var errs []error
	for _, g := range gens {
		if g != nil {
			errs = append(errs, g.Close())
		}
	}
	return errors.Join(errs...)
}

// isClosed reports whether Close was called.
func (h *Handler) isClosed() bool {
	select {
	case <-h.closing:
		return true
	default:
		return false
	}
}

// inheritStamps gives g's contents the stamps prev recorded for the same
// digests. A stamp describes an inode's state, so it holds in g only if
// g's file is that inode, unchanged (a regenerated tree hard-links the
// files it did not change): then nothing is read again; otherwise the
// state differs and the file is checked as a new one.
func (g *Generation) inheritStamps(prev *Generation) {
	for _, slot := range g.slots {
		if old, ok := prev.bySHA[slot.digest]; ok {
			if s := old.stamp.Load(); s != nil {
				slot.stamp.CompareAndSwap(nil, s)
			}
		}
	}
}

// trust verifies g's files and TUF metadata with Options.Trust, when
// set: the copy about to be served (its snapshot, which carries tuf/), so
// that what is checked is what is served. A refusal is counted by the
// threat it names and logged; the previous generation stays.
func (h *Handler) trust(g *Generation) error {
	if h.opts.Trust == nil {
		return nil
	}
	t, err := tree.OpenDir(g.root.Name())
	if err == nil {
		err = h.opts.Trust(context.Background(), t)
		t.Close()
	}
	if err != nil {
		reason := string(sign.ThreatOf(err))
		if reason == "" {
			reason = "unverifiable"
		}
		h.metrics.refuse(reason)
		h.log.Error("new generation refused: its signatures do not verify; still serving the previous one, if any",
			"id", g.ID, "reason", reason, "err", err)
	}
	return err
}
