package site

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server serves a Handler over HTTP/1.1 with a fast path for the one
// request clusters make, GET /graph, so that it answers it with less CPU
// than nginx answers the same file.
//
// net/http spends most of a graph request's CPU on what a static answer
// does not need: parsing every header into a map, a ResponseWriter, a
// header flush separate from the body, and an open and close of the file.
// The fast path reads the request in place from the connection's buffer,
// answers from the Handler's own lookup (the same code net/http's path
// runs), writes the headers and the body with one writev, or the headers
// then a sendfile from a file kept open for the generation.
//
// It only takes requests it understands completely: GET or HEAD over
// HTTP/1.1 to a graph route, with a Host, no body and no Connection,
// Expect or Upgrade header, percent-free path, and an answer of 200 or
// 304. Anything else (and every later request on that connection) goes
// to Fallback, an ordinary http.Server, with the bytes already read, so
// the client cannot tell the two paths apart except by speed. A test
// compares both paths' answers to the same requests.
type Server struct {
	// Handler answers graph requests on the fast path.
	Handler *Handler
	// Fallback serves the rest: normally CORS(Handler), as without Server.
	Fallback http.Handler
	// CORS adds CORS's headers to fast-path answers; set it when Fallback
	// is wrapped in CORS.
	CORS bool
	// ReadHeaderTimeout and IdleTimeout mean what they mean for
	// http.Server, for both paths.
	ReadHeaderTimeout, IdleTimeout time.Duration
	// NoFastPath gives every connection to Fallback (with an access log,
	// which the fast path does not write). Either way, net/http's own
	// plain-text refusals of requests it cannot parse are rewritten as
	// the JSON body of every other refusal (refusal.go).
	NoFastPath bool

	startOnce sync.Once
	fallback  *http.Server
	handoff   *handoffListener

	mu      sync.Mutex
	ln      net.Listener
	conns   map[*fastConn]struct{}
	closing atomic.Bool
	active  sync.WaitGroup

	dates    atomic.Pointer[dateCache]
	handoffs atomic.Int64 // connections given to Fallback
	reads    atomic.Int64 // the fast path's read system calls, of connections it has finished with
}

// Serve accepts connections on ln until Shutdown; it returns
// http.ErrServerClosed then.
func (s *Server) Serve(ln net.Listener) error {
	s.start(ln.Addr())
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.ln = ln
	s.mu.Unlock()
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return http.ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// As net/http does: back off on a transient error (EMFILE,
			// ECONNABORTED) rather than fail the server.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if s.NoFastPath {
			s.handoffs.Add(1)
			s.handoff.push(&bufferedConn{Conn: c})
			continue
		}
		fc := s.newConn(c)
		if fc == nil {
			c.Close()
			continue
		}
		go fc.serve()
	}
}

func (s *Server) start(addr net.Addr) {
	s.startOnce.Do(func() {
		s.conns = map[*fastConn]struct{}{}
		s.handoff = newHandoffListener(addr)
		s.fallback = &http.Server{Handler: s.Fallback, ReadHeaderTimeout: s.ReadHeaderTimeout, IdleTimeout: s.IdleTimeout}
		go s.fallback.Serve(s.handoff)
	})
}

// Shutdown stops accepting, closes idle connections, and waits for
// requests in flight on both paths, or for ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.start(nil)
	s.mu.Lock()
	s.closing.Store(true)
	if s.ln != nil {
		s.ln.Close()
	}
	for fc := range s.conns {
		// Wakes a connection waiting for a request; one answering sees
		// closing before it reads the next.
		fc.c.SetReadDeadline(aLongTimeAgo)
	}
	s.mu.Unlock()
	err := s.fallback.Shutdown(ctx)
	done := make(chan struct{})
	go func() { s.active.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

var aLongTimeAgo = time.Unix(1, 0)

func (s *Server) newConn(c net.Conn) *fastConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return nil
	}
	fc := newFastConn(s, c)
	s.conns[fc] = struct{}{}
	s.active.Add(1)
	return fc
}

func (s *Server) forget(fc *fastConn) {
	s.mu.Lock()
	delete(s.conns, fc)
	s.mu.Unlock()
	s.active.Done()
}

// handoffListener feeds connections the fast path gave up on to the
// fallback http.Server.
type handoffListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// push hands c over, or closes it if the fallback server has stopped.
func (l *handoffListener) push(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.closed:
		c.Close()
	}
}

// bufferedConn is a connection net/http serves, whose first bytes,
// pending, may have been read already. Its own refusals are rewritten as
// JSON on the way out (refusal.go).
type bufferedConn struct {
	net.Conn
	pending []byte
}

func (c *bufferedConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		return c.Conn.Read(p)
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *bufferedConn) Write(p []byte) (int, error) {
	if j := jsonRefusal(p); j != nil {
		if _, err := c.Conn.Write(j); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// CloseWrite lets net/http half-close after a 431, as it does on a plain
// TCP connection, so the client reads the answer before the reset.
func (c *bufferedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps net/http's sendfile path: it looks for io.ReaderFrom on
// the connection.
func (c *bufferedConn) ReadFrom(src io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, src)
}
