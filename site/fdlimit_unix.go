//go:build unix

package site

import "golang.org/x/sys/unix"

// sharedFileLimit is how many descriptors a Handler's generations may keep
// open together (fileBudget): what the process may open (Go raises the
// soft limit to the hard one at start) less an eighth, at least 512, for
// connections and everything else, at most 32,768. A real-scale tree has
// 27,000 distinct files and as many gzip copies; clusters ask for the
// copies. It was half the limit per generation, so that two overlapping
// ones fit, which left half of them unused the rest of the time: at a
// limit of 20,000, 10,000 of the 16,300 files a mixed load asks for.
func sharedFileLimit() int {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 512
	}
	n := int64(min(lim.Cur, 1<<30))
	return int(max(64, min(n-max(n/8, 512), 32768)))
}
