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
	fd int
	// dirs holds its directories' descriptors (-1: not to be used) while
	// the handle budget lasts; the files of other directories are opened
	// by their path from the root. A directory is checked to be beneath
	// the root when it is opened, not again for each of its files: moving
	// it out of the tree while a generation runs takes write access to
	// the tree, and what is linked must still be a regular file holding
	// exactly the bytes wanted.
	dirs      sync.Map
	handles   *handleBudget
	closeOnce sync.Once
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
	return &previousTree{fd: fd, handles: newHandleBudget()}
}

// close releases the tree's descriptors; it may be called more than once
// (Abort after a failed Commit).
func (t *previousTree) close() {
	if t == nil {
		return
	}
	t.closeOnce.Do(func() {
		t.dirs.Range(func(rel, fd any) bool {
			if fd.(int) >= 0 {
				unix.Close(fd.(int))
			}
			t.dirs.Delete(rel)
			return true
		})
		unix.Close(t.fd)
	})
}

// at is the directory and name to open base of the previous tree's
// directory rel with, or ok false when that directory cannot be used.
func (t *previousTree) at(rel, base string) (dir int, name string, ok bool) {
	if fd, cached := t.dirs.Load(rel); cached {
		return fd.(int), base, fd.(int) >= 0
	}
	if !t.handles.take() {
		return t.fd, rel + base, true
	}
	dirName := rel
	if dirName == "" {
		dirName = "."
	}
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat2(t.fd, dirName, &unix.OpenHow{
			Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveInTree,
		})
	})
	if err != nil {
		t.handles.give()
		switch err {
		case unix.EMFILE, unix.ENFILE, unix.ENOMEM, unix.EAGAIN:
			return t.fd, rel + base, true // a passing shortage: by path this time
		}
		fd = -1 // missing, not a directory, a symbolic link, or no openat2 (before Linux 5.6)
	}
	if prev, loaded := t.dirs.LoadOrStore(rel, fd); loaded {
		if fd >= 0 {
			unix.Close(fd)
			t.handles.give()
		}
		fd = prev.(int)
	}
	return fd, base, fd >= 0
}

// reuse hard-links the previous tree's file of the same name as dst/base
// into dst when it is a regular file holding exactly data, and reports
// whether it did.
func (t *previousTree) reuse(dst *treeDir, base string, data []byte) bool {
	fd, ok := t.openFile(dst, base)
	if !ok {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != int64(len(data)) || !holds(fd, data) {
		return false
	}
	return t.linkInto(fd, &st, dst, base)
}

// previousFile is a file of the previous tree opened by open, to be
// linked into dst as base (link) once its bytes are approved.
type previousFile struct {
	t    *previousTree
	fd   int // -1 once closed
	st   unix.Stat_t
	dst  *treeDir
	base string
}

// open opens the previous tree's file of the same name as dst/base when it
// is a regular file of at most maxCarried bytes, and of size bytes unless
// size is negative, and reads it whole into buf (grown as needed).
func (t *previousTree) open(dst *treeDir, base string, size int64, buf []byte) (previousFile, []byte, bool) {
	fd, ok := t.openFile(dst, base)
	if !ok {
		return previousFile{fd: -1}, nil, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxCarried || (size >= 0 && st.Size != size) {
		unix.Close(fd)
		return previousFile{fd: -1}, nil, false
	}
	data, ok := readWhole(fd, st.Size, buf)
	if !ok {
		unix.Close(fd)
		return previousFile{fd: -1}, nil, false
	}
	return previousFile{t: t, fd: fd, st: st, dst: dst, base: base}, data, true
}

// link links the file read into the new tree.
func (f *previousFile) link() bool {
	return f.fd >= 0 && f.t.linkInto(f.fd, &f.st, f.dst, f.base)
}

func (f *previousFile) close() {
	if f.fd >= 0 {
		unix.Close(f.fd)
		f.fd = -1
	}
}

// readWhole reads the size bytes of the file open as fd into buf, grown
// as needed.
func readWhole(fd int, size int64, buf []byte) ([]byte, bool) {
	data := buf[:0]
	if int64(cap(data)) < size {
		data = make([]byte, size)
	}
	data = data[:size]
	for off := 0; off < len(data); {
		n, err := unix.Pread(fd, data[off:], int64(off))
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return nil, false
		}
		off += n
	}
	return data, true
}

// maxCarried bounds the file open reads whole: a copy is smaller than
// the largest file a generation renders.
const maxCarried = 256 << 20

// openFile opens the previous tree's file of the same name as dst/base,
// beneath the tree.
func (t *previousTree) openFile(dst *treeDir, base string) (int, bool) {
	dir, name, ok := t.at(dst.rel, base)
	if !ok {
		return -1, false
	}
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat2(dir, name, &unix.OpenHow{
			Flags: unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC, Resolve: resolveInTree,
		})
	})
	return fd, err == nil
}

// linkInto links the file open as fd, st its fstat, into dst as base: a
// name of the spare that is already that inode is kept as it is.
func (t *previousTree) linkInto(fd int, st *unix.Stat_t, dst *treeDir, base string) bool {
	if kept, err := dst.settle(base, spareIno(dst, st)); kept || err != nil {
		return kept
	}
	// The inode compared is the one linked: through its descriptor, not a
	// second lookup of the name, which another process could have changed.
	newDir, newName := dst.at(base)
	linked := false
	if !t.procLinks.Load() {
		err := linkat(fd, "", newDir, newName, unix.AT_EMPTY_PATH)
		linked = err == nil
		if !linked && err != unix.ENOENT && err != unix.EPERM && err != unix.EINVAL {
			return false
		}
		if !linked {
			t.procLinks.Store(true)
		}
	}
	if !linked {
		proc := "/proc/self/fd/" + strconv.Itoa(fd)
		linked = linkat(unix.AT_FDCWD, proc, newDir, newName, unix.AT_SYMLINK_FOLLOW) == nil
	}
	if linked {
		dst.counts.addLinked()
		dst.record(base, st.Ino)
	}
	return linked
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
