package registrytest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy is a plain-HTTP reverse proxy on 127.0.0.1 in front of a registry. It
// counts what clients ask for and can inject faults, so tests can assert how
// much a scraper fetched and how it copes with a misbehaving registry.
type Proxy struct {
	// Host is "127.0.0.1:PORT"; use it in references instead of the
	// registry's host to go through the proxy.
	Host string
	// URL is "http://" + Host.
	URL string

	t         testing.TB
	upstream  string
	srv       *httptest.Server
	transport *http.Transport

	// closing is closed by Close so stalled handlers give up even when their
	// client never goes away; otherwise httptest.Server.Close would hang.
	closing   chan struct{}
	closeOnce sync.Once

	mu     sync.Mutex
	counts Counts
	paths  []string
	faults []*faultState
	fired  int
}

// Counts are totals since the proxy started or since the last Reset.
type Counts struct {
	Requests      int // every request, including ones answered by a fault
	TagLists      int // GET /v2/<repo>/tags/list
	ManifestGETs  int // GET /v2/<repo>/manifests/<ref>
	ManifestHEADs int // HEAD /v2/<repo>/manifests/<ref>
	BlobGETs      int // GET /v2/<repo>/blobs/<digest> (not uploads)
	BlobHEADs     int // HEAD /v2/<repo>/blobs/<digest>
	// BlobBytes counts blob body bytes relayed from the registry and handed
	// to the client connection (a truncated transfer counts what was sent).
	BlobBytes int64
	// Bytes counts all response body bytes written to clients, including
	// bodies of injected error responses.
	Bytes int64
}

// NewProxy starts a proxy forwarding to upstreamHost ("host:port", plain
// HTTP) and closes it when t finishes.
func NewProxy(t testing.TB, upstreamHost string) *Proxy {
	t.Helper()
	p := &Proxy{
		t:        t,
		upstream: upstreamHost,
		// No Proxy func: HTTP_PROXY must not reroute test traffic. Compression
		// off: the transport must not add Accept-Encoding and silently
		// decompress, which would change bodies and Content-Length.
		transport: &http.Transport{
			DisableCompression:  true,
			MaxIdleConnsPerHost: 32,
		},
		closing: make(chan struct{}),
	}
	p.srv = httptest.NewServer(p)
	p.URL = p.srv.URL
	p.Host = strings.TrimPrefix(p.srv.URL, "http://")
	t.Cleanup(p.Close)
	return p
}

// Close stops the proxy, aborting in-flight (including stalled) requests. It
// is safe to call more than once; NewProxy registers it with t.Cleanup.
func (p *Proxy) Close() {
	p.closeOnce.Do(func() {
		close(p.closing)
		// Active connections are force-closed: a client that stopped reading
		// a large body would otherwise keep its handler, and Close, blocked.
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.transport.CloseIdleConnections()
	})
}

// Counts returns the totals since the last Reset.
func (p *Proxy) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// Paths returns "METHOD /request-uri" for each request since the last Reset,
// in arrival order; handy in failure messages.
func (p *Proxy) Paths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.paths...)
}

// Reset zeroes the counts and the request log. Faults are left alone.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts = Counts{}
	p.paths = nil
}

// requestKind classifies registry API calls for counting.
type requestKind int

const (
	kindOther requestKind = iota
	kindTagList
	kindManifestGET
	kindManifestHEAD
	kindBlobGET
	kindBlobHEAD
)

var (
	tagListPath  = regexp.MustCompile(`^/v2/.+/tags/list$`)
	manifestPath = regexp.MustCompile(`^/v2/.+/manifests/[^/]+$`)
	blobPath     = regexp.MustCompile(`^/v2/.+/blobs/[^/]+$`)
)

func classify(r *http.Request) requestKind {
	path := r.URL.Path
	get, head := r.Method == http.MethodGet, r.Method == http.MethodHead
	switch {
	case get && tagListPath.MatchString(path):
		return kindTagList
	case manifestPath.MatchString(path):
		if get {
			return kindManifestGET
		}
		if head {
			return kindManifestHEAD
		}
	case blobPath.MatchString(path) && !strings.Contains(path, "/blobs/uploads/"):
		if get {
			return kindBlobGET
		}
		if head {
			return kindBlobHEAD
		}
	}
	return kindOther
}

func (p *Proxy) record(r *http.Request, kind requestKind) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts.Requests++
	switch kind {
	case kindTagList:
		p.counts.TagLists++
	case kindManifestGET:
		p.counts.ManifestGETs++
	case kindManifestHEAD:
		p.counts.ManifestHEADs++
	case kindBlobGET:
		p.counts.BlobGETs++
	case kindBlobHEAD:
		p.counts.BlobHEADs++
	}
	p.paths = append(p.paths, r.Method+" "+r.URL.RequestURI())
}

func (p *Proxy) addBytes(n int64, blob bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts.Bytes += n
	if blob {
		p.counts.BlobBytes += n
	}
}

// ServeHTTP counts the request, then either forwards it or lets the first
// matching fault answer it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	kind := classify(r)
	p.record(r, kind)
	cw := &countingWriter{ResponseWriter: w, p: p}
	f, ok := p.takeFault(r)
	if !ok {
		p.forward(cw, r, kind, relayAll)
		return
	}
	p.serveFault(cw, r, kind, f)
}

// relayMode says how much of upstream's body forward passes on.
type relayMode struct {
	limit int64 // bytes to send before acting; <0 means the whole body
	// then runs after limit bytes were sent and flushed; it returns false to
	// abort the connection instead of sending the rest.
	then func() bool
}

var relayAll = relayMode{limit: -1}

// hopHeaders are connection-scoped and must not be relayed (RFC 9110 7.6.1).
var hopHeaders = []string{
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// forward relays r to the registry and streams the answer back, preserving
// headers such as Docker-Content-Digest, Location, Link and WWW-Authenticate.
func (p *Proxy) forward(w *countingWriter, r *http.Request, kind requestKind, mode relayMode) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+p.upstream+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, fmt.Sprintf("registrytest proxy: building upstream request: %v", err), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.ContentLength = r.ContentLength
	if r.ContentLength == 0 {
		out.Body = http.NoBody
	}
	// Keep the client's Host: distribution builds absolute upload Locations
	// from it, and those must point back at the proxy, not around it.
	out.Host = r.Host

	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		if r.Context().Err() != nil {
			panic(http.ErrAbortHandler) // client gone; nobody to answer
		}
		http.Error(w, fmt.Sprintf("registrytest proxy: upstream %s: %v", p.upstream, err), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()

	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = append([]string(nil), vs...)
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	// A truncated body must still announce its full length, or the client
	// could not tell the cut from a legitimately short body.
	if resp.ContentLength >= 0 && h.Get("Content-Length") == "" && r.Method != http.MethodHead {
		h.Set("Content-Length", fmt.Sprint(resp.ContentLength))
	}
	w.WriteHeader(resp.StatusCode)

	w.blob = kind == kindBlobGET
	if mode.limit >= 0 {
		if _, err := io.CopyN(w, resp.Body, mode.limit); err != nil && !errors.Is(err, io.EOF) {
			return
		}
		_ = http.NewResponseController(w).Flush()
		if !mode.then() {
			// ErrAbortHandler closes the connection without a log line, so
			// the client sees the body end early.
			panic(http.ErrAbortHandler)
		}
	}
	_, _ = io.Copy(w, resp.Body)
}

// wait blocks for d (forever when d is 0) and reports whether the time ran
// out, as opposed to the client leaving or the proxy closing.
func (p *Proxy) wait(ctx context.Context, d time.Duration) bool {
	var timeout <-chan time.Time
	if d > 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case <-timeout:
		return true
	case <-ctx.Done():
		return false
	case <-p.closing:
		return false
	}
}

// countingWriter tallies body bytes actually accepted by the connection.
type countingWriter struct {
	http.ResponseWriter
	p    *Proxy
	blob bool // count towards BlobBytes too
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.p.addBytes(int64(n), w.blob)
	return n, err
}

// Unwrap lets http.ResponseController reach the real writer to flush.
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
