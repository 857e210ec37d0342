//go:build unix

package writer

import (
	"bytes"
	"io"
	"os"
	"sync"
	"syscall"
)

// reuse hard-links old to p when old is a regular file holding exactly
// data, and reports whether it did. A regeneration mostly rewrites the
// files it replaces byte for byte: linking them skips writing them (and,
// on a disk, flushing them), and removing the replaced tree then frees
// only directory entries. The bytes are compared rather than trusted to
// the old index.json, so a file changed since it was written is never
// carried over; the old tree itself is never written to.
func reuse(old, p string, data []byte) bool {
	// O_NOFOLLOW: a symbolic link in the old tree is not followed (and
	// link(2) would link the symbolic link itself).
	f, err := os.OpenFile(old, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(data)) || !holds(f, data) {
		return false
	}
	return os.Link(old, p) == nil
}

var compareBuffers = sync.Pool{New: func() any { return new([]byte) }}

// holds reports whether the first len(data) bytes of r are data, reading
// them with one call where the file system allows.
func holds(r io.Reader, data []byte) bool {
	bp := compareBuffers.Get().(*[]byte)
	defer compareBuffers.Put(bp)
	if cap(*bp) < len(data) {
		*bp = make([]byte, len(data))
	}
	buf := (*bp)[:len(data)]
	_, err := io.ReadFull(r, buf)
	return err == nil && bytes.Equal(buf, data)
}
