//go:build !linux

package site

import (
	"net"
	"os"
)

// connWriter writes a connection's answers with plain writes where
// sendfile(2) with an explicit offset is not available.
type connWriter struct{ c net.Conn }

func newConnWriter(c net.Conn) *connWriter { return &connWriter{c: c} }

func (w *connWriter) sendFile(f *os.File, size int64) error { return copyFile(w.c, f, size) }

func (w *connWriter) writeHead(b []byte) error {
	_, err := w.c.Write(b)
	return err
}
