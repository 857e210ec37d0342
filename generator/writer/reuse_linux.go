package writer

import (
	"bytes"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// previousTree is the tree a generation replaces, open as a directory, so
// that files it already holds byte for byte are hard-linked into the new
// tree instead of written. A regeneration mostly rewrites files it
// replaces unchanged: linking them skips writing them (and, on a disk,
// flushing them), and removing the replaced tree then frees only
// directory entries. The bytes are compared rather than trusted to the
// old index.json, so a file changed since it was written is never carried
// over, and the old tree itself is never written to.
type previousTree struct{ fd int }

// openPrevious opens dir, or returns nil when there is none to reuse.
func openPrevious(dir string) *previousTree {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return &previousTree{fd}
}

func (t *previousTree) close() {
	if t != nil {
		unix.Close(t.fd)
	}
}

// reuse hard-links the previous tree's file name to p when it is a
// regular file holding exactly data, and reports whether it did.
func (t *previousTree) reuse(name, p string, data []byte) bool {
	// No symbolic link anywhere on the path, nothing outside the tree, and
	// no blocking open of a FIFO: what is linked is a file of the tree.
	fd, err := unix.Openat2(t.fd, name, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return false // also ENOSYS before Linux 5.6: the file is written
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != int64(len(data)) || !holds(fd, data) {
		return false
	}
	// The inode compared is the one linked: through its descriptor, not a
	// second lookup of the path, which another process could have changed.
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, p, unix.AT_SYMLINK_FOLLOW) == nil
}

var compareBuffers = sync.Pool{New: func() any { return new([]byte) }}

// holds reports whether the file open as fd starts with data.
func holds(fd int, data []byte) bool {
	bp := compareBuffers.Get().(*[]byte)
	defer compareBuffers.Put(bp)
	if cap(*bp) < len(data) {
		*bp = make([]byte, len(data))
	}
	buf := (*bp)[:len(data)]
	for off := 0; off < len(buf); {
		n, err := unix.Pread(fd, buf[off:], int64(off))
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return false
		}
		off += n
	}
	return bytes.Equal(buf, data)
}
