//go:build unix

package bundle

import (
	"io/fs"
	"syscall"
)

// fileID identifies the file behind a name, so that hard links to it are
// recognised as one.
func fileID(info fs.FileInfo) (any, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
