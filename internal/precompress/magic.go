package precompress

import (
	"bytes"
	"io"
	"os"
)

// IsGzipFile reports whether the file p starts as gzip data does (a
// bundle, a graph-data .tar.gz). It lives here, at the bottom, so that
// the tree's location checks and generate's input checks share it
// without generator importing tree.
func IsGzipFile(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 2)
	_, err = io.ReadFull(f, magic)
	return err == nil && bytes.Equal(magic, []byte{0x1f, 0x8b})
}
