package service

import (
	"time"

	"github.com/upgraph/upgraph/tree/manifest"
)

// rolloutClock is when the served tree's phased rollouts next change
// (index.json rollouts.nextChange, docs/rollouts.md): upgraph service
// regenerates then, even with no input changed, and sleeps no longer.
type rolloutClock struct {
	known bool      // next was read (from a generation or the tree)
	next  time.Time // zero: no change to come
}

// set records the generation just written.
func (c *rolloutClock) set(m *manifest.Manifest) {
	c.known, c.next = true, nextChange(m)
}

// due reports whether the tree's rollouts have changed by now; the first
// call reads the tree the service found at start.
func (c *rolloutClock) due(tree string, now time.Time) bool {
	if !c.known {
		if m, err := manifest.Read(tree); err == nil {
			c.set(m)
		}
	}
	return !c.next.IsZero() && !now.Before(c.next)
}

// wait is how long to sleep before the next refresh: interval, or less
// when a bucket opens sooner.
func (c *rolloutClock) wait(interval time.Duration, now time.Time) time.Duration {
	if c.next.IsZero() {
		return interval
	}
	return max(0, min(interval, c.next.Sub(now)))
}

func nextChange(m *manifest.Manifest) time.Time {
	if m == nil || m.Rollouts == nil || m.Rollouts.NextChange == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, m.Rollouts.NextChange)
	if err != nil {
		return time.Time{}
	}
	return t
}
