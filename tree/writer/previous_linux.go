package writer

import (
	"time"

	"golang.org/x/sys/unix"
)

// linkSized links the previous tree's file of the same name as dst/base
// into dst when it is a regular file of size bytes modified at or before
// notAfter, beneath the tree, and reports whether it did.
//
// An incremental generation takes tens of thousands of files over this
// way, so it costs three system calls and opens nothing: the name is
// looked up relative to its directory's handle (checked to be beneath
// the tree when it was opened), stat'ed without following a symbolic
// link, linked by name (linkat without AT_SYMLINK_FOLLOW links what the
// name is, never what it points to), and the new name stat'ed again: if
// the inode linked is not the one checked (the name was replaced in
// between), the link is removed and nothing is taken over.
func (t *previousTree) linkSized(dst *treeDir, base string, size int64, notAfter time.Time) bool {
	dir, name, ok := t.at(dst.rel, base)
	if !ok {
		return false
	}
	if name != base {
		// Reached by a path from the root (the handle budget is spent):
		// only openat2 resolves it beneath the tree.
		return t.linkSizedOpen(dst, base, size, notAfter)
	}
	var st unix.Stat_t
	if fstatat(dir, name, &st) != nil || !sizedRegular(&st, size, notAfter) {
		return false
	}
	if kept, err := dst.settle(base, spareIno(dst, &st)); kept || err != nil {
		return kept
	}
	newDir, newName := dst.at(base)
	if linkat(dir, name, newDir, newName, 0) != nil {
		return false
	}
	var got unix.Stat_t
	if fstatat(newDir, newName, &got) != nil || got.Dev != st.Dev || got.Ino != st.Ino || !sizedRegular(&got, size, notAfter) ||
		got.Mtim != st.Mtim {
		_ = unix.Unlinkat(newDir, newName, 0)
		return false
	}
	dst.counts.addLinked()
	dst.record(base, got.Ino)
	return true
}

// spareIno is the inode number the spare's file of dst must have to be
// the previous tree's file st: 0 (none) when st is on another device.
func spareIno(dst *treeDir, st *unix.Stat_t) uint64 {
	if dst.spare == nil || st.Dev != dst.spare.dev {
		return 0
	}
	return st.Ino
}

// linkSizedOpen is linkSized through a descriptor of the file, opened
// beneath the tree: the inode checked is the one linked.
func (t *previousTree) linkSizedOpen(dst *treeDir, base string, size int64, notAfter time.Time) bool {
	fd, ok := t.openFile(dst, base)
	if !ok {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || !sizedRegular(&st, size, notAfter) {
		return false
	}
	return t.linkInto(fd, &st, dst, base)
}

// sizedRegular reports whether st is a regular file of size bytes
// modified at or before notAfter.
func sizedRegular(st *unix.Stat_t, size int64, notAfter time.Time) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == size && !time.Unix(st.Mtim.Unix()).After(notAfter)
}

// fstatat is unix.Fstatat of name in dir, not following a symbolic link,
// retried when interrupted.
func fstatat(dir int, name string, st *unix.Stat_t) error {
	_, err := retryEINTR(func() (struct{}, error) {
		return struct{}{}, unix.Fstatat(dir, name, st, unix.AT_SYMLINK_NOFOLLOW)
	})
	return err
}

// modTime is the modification time of the previous tree's regular file
// of the same name as dst/base.
func (t *previousTree) modTime(dst *treeDir, base string) (time.Time, bool) {
	fd, ok := t.openFile(dst, base)
	if !ok {
		return time.Time{}, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return time.Time{}, false
	}
	return time.Unix(st.Mtim.Unix()), true
}
