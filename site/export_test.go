package site

import "strings"

// Internals the black-box tests (package site_test) look at.

// Negotiate is negotiate: the media type for an Accept header, "" for 406.
var Negotiate = negotiate

// AcceptsGzip is acceptsGzip.
var AcceptsGzip = acceptsGzip

// GzippedBody returns the gzip body the handler serves for file name of
// the current generation, as held in its content cache.
func (h *Handler) GzippedBody(name string) ([]byte, error) {
	gen := h.gen.Load()
	c, err := h.content(gen, name)
	if err != nil {
		return nil, err
	}
	b, _ := c.gzipped()
	return b, nil
}

// Handoffs counts the connections the fast path gave to Fallback.
func (s *Server) Handoffs() int64 { return s.handoffs.Load() }

// Reads counts the fast path's read system calls on the connections it
// has finished with.
func (s *Server) Reads() int64 { return s.reads.Load() }

// HeadEnd is headEnd.
var HeadEnd = headEnd

// FastRequest is what parseFastRequest read of a request head.
type FastRequest struct {
	Head                                       bool
	Path, RawQuery, Accept                     string
	AcceptPresent                              bool
	AcceptEncoding, IfNoneMatch, Origin, Route string
}

// ParseFastRequest is parseFastRequest, with the route the handler gives
// the path.
func (h *Handler) ParseFastRequest(head []byte) (FastRequest, bool) {
	r, ok := parseFastRequest(head)
	route, _ := h.routeOf(r.path)
	// Copied: r's strings are views of head (fastRequest), which the
	// caller may reuse.
	c := strings.Clone
	return FastRequest{r.head, c(r.path), c(r.rawQuery), c(r.accept), r.acceptPresent, c(r.acceptEncoding), c(r.ifNoneMatch), c(r.origin), route}, ok
}

// AnswerFast runs what the fast path does for one request head short of
// writing: parse, route, answer, and release what the answer holds. ok is
// false when the request would be handed to net/http.
func (h *Handler) AnswerFast(head []byte) (status int, ok bool) {
	r, ok := parseFastRequest(head)
	if !ok {
		return 0, false
	}
	if route, _ := h.routeOf(r.path); route != "graph" {
		return 0, false
	}
	a, ok := h.fastAnswer(&r)
	a.done()
	return a.status, ok
}

// Verified reports whether the served generation's file with this digest
// was read, found to match it, and is streamed while unchanged.
func (h *Handler) Verified(digest string) bool {
	g := h.gen.Load()
	if g == nil || g.bySHA[digest] == nil {
		return false
	}
	s := g.bySHA[digest].stamp.Load()
	return s != nil && s.good
}

// CachedBytes is what the content cache holds, in bytes.
func (h *Handler) CachedBytes() int64 { return h.cache.bytes() }

// Hold takes the reference a request takes on the generation being
// served, and returns what releases it (nil when none is served).
func (h *Handler) Hold() (release func()) {
	g := h.acquire()
	if g == nil {
		return nil
	}
	return g.release
}

// SetFileBudget sets how many descriptors h's generations may keep open
// together (fileBudget); call it before the first SetGeneration.
func (h *Handler) SetFileBudget(n int) { h.sharedFiles = newFileBudget(n) }

// FileBudgetLeft is how many of them are not held.
func (h *Handler) FileBudgetLeft() int64 { return h.sharedFiles.left.Load() }
