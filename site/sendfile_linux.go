package site

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// connWriter writes a connection's answers with system calls of its own:
// the head with MSG_MORE, then the body with sendfile(2). It is made once
// per connection, with the functions RawConn.Write runs: made per answer,
// they and the RawConn cost five allocations an answer, most of the fast
// path's garbage.
type connWriter struct {
	c   net.Conn
	raw syscall.RawConn // nil when c has no descriptor: plain writes then

	// The write in progress, for sendHead and sendBody.
	head      []byte
	in        int // the file's descriptor
	off, size int64
	err       error
	sendHead  func(fd uintptr) bool
	sendBody  func(fd uintptr) bool
}

func newConnWriter(c net.Conn) *connWriter {
	w := &connWriter{c: c}
	if sc, ok := c.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			w.raw = raw
		}
	}
	w.sendHead, w.sendBody = w.headOnce, w.bodyOnce
	return w
}

// writeHead sends a response head that a sendfile will follow with
// MSG_MORE, so the kernel sends both in full segments instead of the head
// on its own (the socket has TCP_NODELAY).
func (w *connWriter) writeHead(b []byte) error {
	if w.raw == nil {
		_, err := w.c.Write(b)
		return err
	}
	w.head, w.err = b, nil
	err := w.raw.Write(w.sendHead)
	w.head = nil
	if w.err != nil {
		return w.err
	}
	return err
}

// headOnce writes what is left of the head; false when the socket is
// full (RawConn.Write then waits until it is writable and calls again).
func (w *connWriter) headOnce(fd uintptr) bool {
	for len(w.head) > 0 {
		n, err := syscall.SendmsgN(int(fd), w.head, nil, nil, syscall.MSG_MORE)
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return false
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			w.err = err
			return true
		}
		w.head = w.head[n:]
	}
	return true
}

// sendFile sends size bytes of f from its start with sendfile(2) and an
// explicit offset, so one open file serves concurrent requests. The file's
// descriptor is held (Control) while it is used: a generation closing it
// cannot have its number reused under the copy.
func (w *connWriter) sendFile(f *os.File, size int64) error {
	if w.raw == nil {
		return copyFile(w.c, f, size)
	}
	file, err := f.SyscallConn()
	if err != nil {
		return err
	}
	w.off, w.size, w.err = 0, size, nil
	var werr error
	err = file.Control(func(in uintptr) {
		w.in = int(in)
		werr = w.raw.Write(w.sendBody)
	})
	if err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	return werr
}

// bodyOnce sends what is left of the file; false when the socket is full.
func (w *connWriter) bodyOnce(out uintptr) bool {
	for w.off < w.size {
		n, err := syscall.Sendfile(int(out), w.in, &w.off, int(min(w.size-w.off, 1<<30)))
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return false // wait until the socket is writable
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			w.err = err
			return true
		case n == 0:
			w.err = io.ErrUnexpectedEOF // the file shrank
			return true
		}
	}
	return true
}
