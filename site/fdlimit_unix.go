//go:build unix

package site

import "golang.org/x/sys/unix"

func sharedFileLimit() int {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 512
	}
	return int(max(64, min(lim.Cur/2, 32768)))
}
