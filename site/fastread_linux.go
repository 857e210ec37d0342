package site

import (
	"net"
	"syscall"
)

// rawReader is c's descriptor for fastConn's own reads, nil if it has none.
func rawReader(c net.Conn) syscall.RawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// readFD is one read(2) of a non-blocking socket.
func readFD(fd uintptr, p []byte) (int, error) {
	return syscall.Read(int(fd), p)
}
