package site

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// writeHead sends a response head that a sendfile will follow with
// MSG_MORE, so the kernel sends both in full segments instead of the head
// on its own (the socket has TCP_NODELAY).
func writeHead(c net.Conn, b []byte) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		_, err := c.Write(b)
		return err
	}
	conn, err := sc.SyscallConn()
	if err != nil {
		_, err := c.Write(b)
		return err
	}
	var sendErr error
	err = conn.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, err := syscall.SendmsgN(int(fd), b, nil, nil, syscall.MSG_MORE)
			switch {
			case errors.Is(err, syscall.EAGAIN):
				return false
			case errors.Is(err, syscall.EINTR):
				continue
			case err != nil:
				sendErr = err
				return true
			}
			b = b[n:]
		}
		return true
	})
	if sendErr != nil {
		return sendErr
	}
	return err
}

// sendFile sends size bytes of f from its start with sendfile(2) and an
// explicit offset, so one open file serves concurrent requests. The file's
// descriptor is held (Control) while it is used: a generation closing it
// cannot have its number reused under the copy.
func sendFile(c net.Conn, f *os.File, size int64) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return copyFile(c, f, size)
	}
	conn, err := sc.SyscallConn()
	if err != nil {
		return copyFile(c, f, size)
	}
	file, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var off int64
	var sendErr error
	err = file.Control(func(in uintptr) {
		err := conn.Write(func(out uintptr) bool {
			for off < size {
				n, err := syscall.Sendfile(int(out), int(in), &off, int(min(size-off, 1<<30)))
				switch {
				case errors.Is(err, syscall.EAGAIN):
					return false // wait until the socket is writable
				case errors.Is(err, syscall.EINTR):
					continue
				case err != nil:
					sendErr = err
					return true
				case n == 0:
					sendErr = io.ErrUnexpectedEOF // the file shrank
					return true
				}
			}
			return true
		})
		if sendErr == nil {
			sendErr = err
		}
	})
	if err != nil {
		return err
	}
	return sendErr
}
