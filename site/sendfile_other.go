//go:build !linux

package site

import (
	"net"
	"os"
)

func sendFile(c net.Conn, f *os.File, size int64) error { return copyFile(c, f, size) }

func writeHead(c net.Conn, b []byte) error {
	_, err := c.Write(b)
	return err
}
