//go:build unix

// Package fifotest helps tests that a named pipe among a run's inputs is
// refused rather than opened: opening one without a writer blocks, so a
// test makes a real pipe and bounds the wait for the code under test.
package fifotest

import (
	"syscall"
	"testing"
	"time"
)

// Mkfifo makes a named pipe at path, skipping the test where the file
// system has none.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
}

// Within returns what f returns, failing the test at once, naming what,
// if f has not returned within 10 seconds (it blocked on a pipe); f then
// runs on, in its own goroutine.
func Within[T any](t testing.TB, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked on a named pipe", what)
		var zero T
		return zero
	}
}
