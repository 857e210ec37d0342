package service

import "time"

// Clock is the service's time: when a refresh happens and what time a
// generation's phased rollouts are computed for. Tests inject one to run
// a rollout's schedule (a bucket opening hours later) in milliseconds.
type Clock interface {
	Now() time.Time
	// After is time.After: it delivers once d has passed.
	After(d time.Duration) <-chan time.Time
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
