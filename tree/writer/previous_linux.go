package writer

import (
	"time"

	"golang.org/x/sys/unix"
)

// linkSized links the previous tree's file of the same name as dst/base
// into dst when it is a regular file of size bytes modified at or before
// notAfter, beneath the tree, and reports whether it did.
func (t *previousTree) linkSized(dst *treeDir, base string, size int64, notAfter time.Time) bool {
	fd, ok := t.openFile(dst, base)
	if !ok {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != size ||
		time.Unix(st.Mtim.Unix()).After(notAfter) {
		return false
	}
	return t.linkInto(fd, dst, base)
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
