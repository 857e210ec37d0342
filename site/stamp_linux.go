package site

import (
	"os"

	"golang.org/x/sys/unix"
)

// statFile is fstat without an allocation: it runs on every streamed
// answer. The descriptor stays open for the call: the caller holds the
// generation, which closes its files only once no request uses it.
func statFile(f *os.File) (fileState, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileState{}, err
	}
	return fileState{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano()}, nil
}
