package s3test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy is a plain-HTTP reverse proxy on 127.0.0.1 in front of a Server. It
// counts what clients ask for and can inject faults. Clients must address
// it path-style.
type Proxy struct {
	// Host is "127.0.0.1:PORT"; URL is "http://" + Host: the endpoint to
	// give clients.
	Host string
	URL  string

	t         testing.TB
	upstream  string
	srv       *httptest.Server
	transport *http.Transport
	closeOnce sync.Once

	mu       sync.Mutex
	requests []Request
	faults   []*faultState
	fired    int
	inflight int // handlers running
	active   map[net.Conn]bool
	seen     int        // requests ever received, to notice late arrivals
	idle     *sync.Cond // signalled when inflight drops to 0
}

// Kind classifies an S3 request for counting.
type Kind string

// Request kinds. Object operations are those whose path names a key.
const (
	GET    Kind = "GET"    // GetObject
	HEAD   Kind = "HEAD"   // HeadObject
	PUT    Kind = "PUT"    // PutObject (and CopyObject)
	DELETE Kind = "DELETE" // DeleteObject
	LIST   Kind = "LIST"   // GET on a bucket: ListObjects(V2) and other bucket reads
	OTHER  Kind = "OTHER"  // anything else: bucket creation, batch delete, multipart, ...
)

// Request is one request the proxy received, in arrival order.
type Request struct {
	Kind   Kind
	Method string
	Bucket string
	Key    string // object key, unescaped; "" for bucket and service requests
	Status int    // status answered; 0 when the connection was cut
	Fault  bool   // answered by an injected fault
}

func (r Request) String() string {
	s := fmt.Sprintf("%s %s/%s → %d", r.Method, r.Bucket, r.Key, r.Status)
	if r.Fault {
		s += " (fault)"
	}
	return s
}

// Counts are totals by kind.
type Counts struct {
	Requests int // all of them, faults included
	GETs     int
	HEADs    int
	PUTs     int
	DELETEs  int
	LISTs    int
	Others   int
}

// NewProxy starts a proxy forwarding to srv and closes it when t finishes.
func NewProxy(t testing.TB, srv *Server) *Proxy {
	t.Helper()
	p := &Proxy{
		t:        t,
		upstream: srv.Host,
		// No Proxy func: HTTP_PROXY must not reroute test traffic. No
		// compression: bodies and Content-Length must pass unchanged.
		transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64, ResponseHeaderTimeout: time.Minute},
	}
	p.idle = sync.NewCond(&p.mu)
	p.active = map[net.Conn]bool{}
	p.srv = httptest.NewUnstartedServer(p)
	// A connection turns active when a request's first bytes are read,
	// before its handler runs: Settle waits for those too.
	p.srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if st == http.StateActive {
			p.active[c] = true
		} else {
			delete(p.active, c)
		}
		p.idle.Broadcast()
	}
	p.srv.Start()
	p.URL = p.srv.URL
	p.Host = strings.TrimPrefix(p.srv.URL, "http://")
	t.Cleanup(p.Close)
	return p
}

// Close stops the proxy, cutting in-flight requests. NewProxy registers it
// with t.Cleanup; calling it more than once is safe.
func (p *Proxy) Close() {
	p.closeOnce.Do(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
		p.transport.CloseIdleConnections()
	})
}

// Requests returns the requests received since the last Reset.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// Counts totals the requests received since the last Reset by kind.
func (p *Proxy) Counts() Counts {
	var c Counts
	for _, r := range p.Requests() {
		c.Requests++
		switch r.Kind {
		case GET:
			c.GETs++
		case HEAD:
			c.HEADs++
		case PUT:
			c.PUTs++
		case DELETE:
			c.DELETEs++
		case LIST:
			c.LISTs++
		default:
			c.Others++
		}
	}
	return c
}

// Keys returns the keys of the requests of kind k that the server answered
// with a 2xx status, in arrival order: what was really written, read or
// deleted.
func (p *Proxy) Keys(k Kind) []string {
	var keys []string
	for _, r := range p.Requests() {
		if r.Kind == k && !r.Fault && r.Status >= 200 && r.Status < 300 {
			keys = append(keys, r.Key)
		}
	}
	return keys
}

// Reset forgets the requests received so far. Faults are left alone.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = nil
}

// classify reads the bucket and key from a path-style request.
func classify(r *http.Request) Request {
	req := Request{Method: r.Method, Kind: OTHER}
	path := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	bucket, key, hasKey := strings.Cut(path, "/")
	req.Bucket, _ = url.PathUnescape(bucket)
	if hasKey && key != "" {
		req.Key, _ = url.PathUnescape(key)
		switch r.Method {
		case http.MethodGet:
			req.Kind = GET
		case http.MethodHead:
			req.Kind = HEAD
		case http.MethodPut:
			req.Kind = PUT
		case http.MethodDelete:
			req.Kind = DELETE
		}
		return req
	}
	if bucket != "" && r.Method == http.MethodGet {
		req.Kind = LIST
	}
	return req
}

// record logs the request and returns its index for setStatus.
func (p *Proxy) record(req Request) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
	return len(p.requests) - 1
}

func (p *Proxy) setStatus(i, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i < len(p.requests) { // a Reset may have come in between
		p.requests[i].Status = status
	}
}

// ServeHTTP counts the request, then lets the first matching fault answer
// it or forwards it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.inflight++
	p.seen++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		if p.inflight--; p.inflight == 0 {
			p.idle.Broadcast()
		}
		p.mu.Unlock()
	}()
	req := classify(r)
	f, faulty := p.takeFault(req)
	req.Fault = faulty
	i := p.record(req)
	sw := &statusWriter{ResponseWriter: w}
	defer func() { p.setStatus(i, sw.status) }()
	if faulty {
		p.serveFault(sw, r, f)
		return
	}
	p.forward(sw, r)
}

// hopHeaders are connection-scoped and must not be relayed (RFC 9110 7.6.1).
var hopHeaders = []string{
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// Settle waits until no request is in flight, relayed ones included, and
// none has arrived for settleQuiet: after it, every write the server
// received has taken effect. A client that gave up may have left a request
// in the socket, not yet read; the quiet period lets it surface. Call it
// when no client is sending.
func (p *Proxy) Settle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for p.inflight > 0 || len(p.active) > 0 {
			p.idle.Wait()
		}
		seen := p.seen
		p.mu.Unlock()
		time.Sleep(settleQuiet)
		p.mu.Lock()
		if p.seen == seen && p.inflight == 0 && len(p.active) == 0 {
			return
		}
	}
}

const settleQuiet = 100 * time.Millisecond

// forward relays r to the server and streams the answer back. The client's
// Host header is kept: it is part of the SigV4 signature.
//
// A client giving up does not cancel the relayed request: like a real
// store, the server completes a request whose body it has received (one
// whose body was cut short still fails), which a client that cancelled
// cannot tell from one never applied. Settle waits for such requests.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	out, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, "http://"+p.upstream+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, fmt.Sprintf("s3test proxy: building upstream request: %v", err), http.StatusBadGateway)
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
	out.Host = r.Host
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		if r.Context().Err() != nil {
			panic(http.ErrAbortHandler) // client gone; nobody to answer
		}
		http.Error(w, fmt.Sprintf("s3test proxy: upstream %s: %v", p.upstream, err), http.StatusBadGateway)
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
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// statusWriter remembers the status sent.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer (to hijack).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
