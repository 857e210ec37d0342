//go:build unix

// Package cputime reads the CPU time the process used, for benchmarks
// that report CPU seconds beside wall time (the development machine is a
// shared 2-vCPU VM, where CPU time varies less with other load).
package cputime

import (
	"syscall"
	"time"
)

// Process is the user and system CPU time the process used so far, all
// threads included; 0 if it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
