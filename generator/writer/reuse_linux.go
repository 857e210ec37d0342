package writer

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"

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
type previousTree struct {
	fd   int
	dirs sync.Map // relative directory → its descriptor, or -1 if it cannot be used
	// procLinks is set once linkat(AT_EMPTY_PATH) is refused (it needs
	// Linux 6.10, or CAP_DAC_READ_SEARCH before): files are then linked
	// through /proc/self/fd.
	procLinks atomic.Bool
}

// resolveInTree opens nothing outside the tree, follows no symbolic link,
// and, with O_NONBLOCK, does not block on a FIFO: what is compared and
// linked is a file of the tree.
const resolveInTree = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openPrevious opens dir, or returns nil when there is none to reuse.
func openPrevious(dir string) *previousTree {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return &previousTree{fd: fd}
}

func (t *previousTree) close() {
	if t == nil {
		return
	}
	t.dirs.Range(func(_, fd any) bool {
		if fd.(int) >= 0 {
			unix.Close(fd.(int))
		}
		return true
	})
	unix.Close(t.fd)
}

// dir returns the descriptor of the previous tree's directory rel, or -1.
func (t *previousTree) dir(rel string) int {
	if fd, ok := t.dirs.Load(rel); ok {
		return fd.(int)
	}
	name := rel
	if name == "" {
		name = "."
	}
	fd, err := unix.Openat2(t.fd, name, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveInTree,
	})
	if err != nil {
		fd = -1 // also ENOSYS before Linux 5.6: every file is written
	}
	if prev, loaded := t.dirs.LoadOrStore(rel, fd); loaded {
		if fd >= 0 {
			unix.Close(fd)
		}
		return prev.(int)
	}
	return fd
}

// reuse hard-links the previous tree's file of the same name as dst/base
// into dst when it is a regular file holding exactly data, and reports
// whether it did.
func (t *previousTree) reuse(dst *treeDir, base string, data []byte) bool {
	dir := t.dir(dst.rel)
	if dir < 0 {
		return false
	}
	fd, err := unix.Openat2(dir, base, &unix.OpenHow{
		Flags: unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC, Resolve: resolveInTree,
	})
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != int64(len(data)) || !holds(fd, data) {
		return false
	}
	// The inode compared is the one linked: through its descriptor, not a
	// second lookup of the name, which another process could have changed.
	if !t.procLinks.Load() {
		err := unix.Linkat(fd, "", dst.fd, base, unix.AT_EMPTY_PATH)
		if err == nil {
			return true
		}
		if err != unix.ENOENT && err != unix.EPERM && err != unix.EINVAL {
			return false
		}
		t.procLinks.Store(true)
	}
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), dst.fd, base, unix.AT_SYMLINK_FOLLOW) == nil
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
