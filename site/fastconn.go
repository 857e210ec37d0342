package site

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"
)

// fastReadBuffer bounds a request head the fast path reads; a longer one
// goes to net/http, which allows far more.
const fastReadBuffer = 4096

var errHeadTooLarge = errors.New("request head larger than the fast path's buffer")

// fastConn is one client connection while the fast path serves it.
type fastConn struct {
	s   *Server
	c   net.Conn
	br  *bufio.Reader
	w   *connWriter
	out []byte // response head, reused
	// bufs and bufArray hold a head and an in-memory body for one writev,
	// without allocating a net.Buffers per answer.
	bufs     net.Buffers
	bufArray [2][]byte
}

func (fc *fastConn) serve() {
	handedOff := false
	defer func() {
		if !handedOff {
			fc.c.Close()
		}
		fc.s.forget(fc)
	}()
	h := fc.s.Handler
	for {
		head, end, lax, started, err := fc.readHead()
		if err != nil {
			if started {
				// A partial or oversized head: net/http answers or times it
				// out as it would have from the start.
				fc.handoff()
				handedOff = true
			}
			return
		}
		r, ok := parseFastRequest(head)
		if ok && !lax {
			route, _ := h.routeOf(r.path)
			ok = route == "graph"
		}
		start := time.Now()
		var a fastAnswer
		if ok && !lax {
			a, ok = h.fastAnswer(&r)
		}
		if !ok || lax {
			fc.handoff()
			handedOff = true
			return
		}
		fc.br.Discard(end)
		err = fc.write(&r, &a)
		h.metrics.observe("graph", a.status, time.Since(start))
		if err != nil {
			return
		}
	}
}

// readHead waits for the next request and returns its head (see headEnd)
// without consuming it. started reports whether any of it arrived.
func (fc *fastConn) readHead() (head []byte, end int, lax, started bool, err error) {
	s := fc.s
	if s.IdleTimeout > 0 {
		fc.c.SetReadDeadline(time.Now().Add(s.IdleTimeout))
	}
	// Checked after the deadline is set, so Shutdown's wake-up cannot be
	// overwritten unnoticed.
	if s.closing.Load() {
		return nil, 0, false, false, net.ErrClosed
	}
	if _, err := fc.br.Peek(1); err != nil {
		return nil, 0, false, false, err
	}
	deadline := false
	for {
		buf, _ := fc.br.Peek(fc.br.Buffered())
		if end, n, lax := headEnd(buf); end >= 0 {
			return buf[:n], end, lax, true, nil
		}
		if fc.br.Buffered() == fc.br.Size() {
			return nil, 0, false, true, errHeadTooLarge
		}
		if !deadline && s.ReadHeaderTimeout > 0 {
			fc.c.SetReadDeadline(time.Now().Add(s.ReadHeaderTimeout))
			deadline = true
		}
		if _, err := fc.br.Peek(fc.br.Buffered() + 1); err != nil {
			return nil, 0, false, true, err
		}
	}
}

// handoff gives the connection, with what was read of it, to net/http.
func (fc *fastConn) handoff() {
	fc.c.SetReadDeadline(time.Time{})
	fc.s.handoffs.Add(1)
	fc.s.handoff.push(&bufferedConn{Conn: fc.c, r: fc.br})
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
