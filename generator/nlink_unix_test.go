//go:build unix

package generator_test

import (
	"os"
	"syscall"
)

func nlink(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}
