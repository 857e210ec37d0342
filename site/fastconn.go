package site

import (
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// fastReadBuffer bounds a request head the fast path reads; a longer one
// goes to net/http, which allows far more.
const fastReadBuffer = 4096

// fastConn is one client connection while the fast path serves it.
//
// It reads requests into buf itself and answers every whole head there
// before it reads again. Where the connection has a descriptor, the reads
// are its own system calls, made from inside one RawConn.Read for the
// connection's whole life (onReadable), so that it can wait for the next
// request without reading first: after a read that returned less than it
// asked for, the socket is empty and the next request comes with a
// readiness event of its own, as nginx assumes too. A plain Read (or a
// RawConn.Read per request) reads first and finds nothing (EAGAIN) after
// almost every answer, because the client sends its next request only
// once it has the answer: 1.8 reads per answer instead of 1. Waiting in
// a new RawConn.Read per request would not do: it forgets a readiness
// event that came before it was called, and would wait for the next one
// while the request is there.
type fastConn struct {
	s   *Server
	c   net.Conn
	raw syscall.RawConn // nil when c has no descriptor: plain reads then
	w   *connWriter
	out []byte // response head, reused
	// bufs and bufArray hold a head and an in-memory body for one writev,
	// without allocating a net.Buffers per answer.
	bufs     net.Buffers
	bufArray [2][]byte

	// buf[start:end] is what was read and not answered yet: at most a
	// part of a head once received returns.
	buf        []byte
	start, end int
	// drained: the last read returned less than it asked for, so the
	// socket was empty then.
	drained bool
	// headerDeadline: the read deadline is ReadHeaderTimeout past when
	// the head in buf began arriving, not the idle deadline.
	headerDeadline bool
	// handOff: the connection goes to Fallback, with buf[start:end].
	handOff bool
	// onReadable is fc.readable, made once per connection: a method
	// value made per RawConn.Read would be an allocation.
	onReadable func(fd uintptr) bool
	reads      int64 // read system calls, added to Server's count at the end
}

func newFastConn(s *Server, c net.Conn) *fastConn {
	fc := &fastConn{s: s, c: c, buf: make([]byte, fastReadBuffer), w: newConnWriter(c)}
	fc.raw = rawReader(c)
	fc.onReadable = fc.readable
	return fc
}

func (fc *fastConn) serve() {
	defer func() {
		fc.s.reads.Add(fc.reads)
		fc.s.forget(fc)
	}()
	if fc.raw != nil {
		// Returns once readable returns true, or with the wait's error: a
		// deadline (idle, header, Shutdown's) or a closed connection.
		// Either way the connection ends here.
		fc.raw.Read(fc.onReadable)
	} else {
		fc.readPlain()
	}
	// A head that was cut short (the client stopped, or took longer than
	// ReadHeaderTimeout) goes to net/http too, which answers or times it
	// out as it would have from the start.
	if fc.handOff || fc.end > fc.start {
		fc.handoff()
		return
	}
	fc.c.Close()
}

// readable reads and answers what arrived; RawConn.Read calls it first
// and then whenever the poller has seen the socket readable since it
// returned false. It returns false to wait for that, true to stop.
func (fc *fastConn) readable(fd uintptr) bool {
	for {
		if fc.drained {
			// The socket was empty after the last read: whatever comes
			// next brings a readiness event, which RawConn.Read waits
			// for, rather than a read now that would find nothing.
			fc.drained = false
			return fc.beforeWait()
		}
		space := len(fc.buf) - fc.end
		n, err := readFD(fd, fc.buf[fc.end:])
		fc.reads++
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return fc.beforeWait()
		case err != nil || n <= 0: // failed, or the client closed
			return true
		}
		fc.drained = n < space
		if fc.received(n) {
			return true
		}
	}
}

// readPlain is readable's loop for a connection without a descriptor.
func (fc *fastConn) readPlain() {
	for !fc.beforeWait() {
		n, err := fc.c.Read(fc.buf[fc.end:])
		fc.reads++
		if n > 0 && fc.received(n) {
			return
		}
		if err != nil {
			return
		}
	}
}

// beforeWait sets the read deadline for the wait to come: the idle
// timeout between requests, ReadHeaderTimeout from when a head began to
// arrive. true means stop instead: the server is shutting down.
func (fc *fastConn) beforeWait() (stop bool) {
	s := fc.s
	switch {
	case fc.end == fc.start:
		fc.headerDeadline = false
		if s.IdleTimeout > 0 {
			fc.c.SetReadDeadline(time.Now().Add(s.IdleTimeout))
		}
	case !fc.headerDeadline:
		fc.headerDeadline = true
		if s.ReadHeaderTimeout > 0 {
			fc.c.SetReadDeadline(time.Now().Add(s.ReadHeaderTimeout))
		}
	}
	// Checked after the deadline is set, so Shutdown's wake-up cannot be
	// overwritten unnoticed.
	return s.closing.Load()
}

// received answers every whole head among the n bytes just read at
// buf[end:] and what was before them. true means stop: the connection
// goes to net/http (handOff), failed or the server is shutting down.
func (fc *fastConn) received(n int) (stop bool) {
	fc.end += n
	for fc.start < fc.end {
		end, headLen, lax := headEnd(fc.buf[fc.start:fc.end])
		if end < 0 {
			break
		}
		if fc.s.closing.Load() {
			fc.start, fc.end = 0, 0 // closed unanswered, as between reads
			return true
		}
		if lax {
			fc.handOff = true
			return true
		}
		answered, err := fc.answer(fc.buf[fc.start : fc.start+headLen])
		if !answered {
			fc.handOff = true
			return true
		}
		fc.start += end
		fc.headerDeadline = false
		if err != nil { // the client is gone: nothing to hand over
			fc.start, fc.end = 0, 0
			return true
		}
	}
	switch {
	case fc.start == fc.end:
		fc.start, fc.end = 0, 0
	case fc.end == len(fc.buf) && fc.start == 0:
		// A head larger than the buffer: net/http allows far more.
		fc.handOff = true
		return true
	case fc.end == len(fc.buf):
		fc.end = copy(fc.buf, fc.buf[fc.start:fc.end])
		fc.start = 0
	}
	return false
}

// answer answers one request whose head (without the empty line) is
// head, unless it is one the fast path leaves to net/http (false).
func (fc *fastConn) answer(head []byte) (answered bool, err error) {
	h := fc.s.Handler
	r, ok := parseFastRequest(head)
	if !ok {
		return false, nil
	}
	if route, _ := h.routeOf(r.path); route != "graph" {
		return false, nil
	}
	start := time.Now()
	a, ok := h.fastAnswer(&r)
	if !ok {
		return false, nil
	}
	err = fc.write(&r, &a)
	h.metrics.observe("graph", a.status, time.Since(start))
	return true, err
}

// handoff gives the connection, with what was read of it and not
// answered, to net/http.
func (fc *fastConn) handoff() {
	fc.c.SetReadDeadline(time.Time{})
	fc.s.handoffs.Add(1)
	fc.s.handoff.push(&bufferedConn{Conn: fc.c, pending: fc.buf[fc.start:fc.end]})
}

// write sends the answer's head and body. The head carries the headers
// net/http's path sends for the same answer, CORS's included.
func (fc *fastConn) write(r *fastRequest, a *fastAnswer) error {
	b := fc.out[:0]
	if a.status == 304 {
		b = append(b, "HTTP/1.1 304 Not Modified\r\n"...)
	} else {
		b = append(b, "HTTP/1.1 200 OK\r\n"...)
	}
	if fc.s.CORS && r.origin != "" {
		b = appendField(b, "Access-Control-Allow-Origin: ", r.origin)
	}
	b = appendField(b, "Cache-Control: ", fc.s.Handler.opts.CacheControl)
	if a.status == 200 {
		if a.gzip {
			b = append(b, "Content-Encoding: gzip\r\n"...)
		}
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, a.size, 10)
		b = append(b, "\r\n"...)
		b = appendField(b, "Content-Type: ", a.mediaType)
	}
	b = append(b, "Date: "...)
	b = append(b, fc.s.date()...)
	b = append(b, "\r\n"...)
	b = appendField(b, "Etag: ", a.etag)
	if fc.s.CORS {
		b = append(b, "Vary: Origin, Access-Control-Request-Method, Access-Control-Request-Headers\r\n"...)
	}
	b = append(b, "Vary: Accept, Accept-Encoding\r\n\r\n"...)
	fc.out = b
	defer a.done()

	switch {
	case a.status != 200 || r.head:
		_, err := fc.c.Write(b)
		return err
	case a.file != nil:
		if err := fc.w.writeHead(b); err != nil {
			return err
		}
		return fc.w.sendFile(a.file, a.size)
	default:
		fc.bufArray = [2][]byte{b, a.body}
		fc.bufs = fc.bufArray[:]
		_, err := fc.bufs.WriteTo(fc.c)
		fc.bufArray = [2][]byte{} // a.body may be the cache's: not kept
		return err
	}
}

func appendField(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, value...)
	return append(b, "\r\n"...)
}

// dateCache is the Date header value, formatted once a second.
type dateCache struct {
	unix int64
	text []byte
}

func (s *Server) date() []byte {
	now := time.Now()
	if d := s.dates.Load(); d != nil && d.unix == now.Unix() {
		return d.text
	}
	d := &dateCache{unix: now.Unix(), text: now.UTC().AppendFormat(nil, http.TimeFormat)}
	s.dates.Store(d)
	return d.text
}
