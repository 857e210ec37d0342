package service

import (
	"testing"
	"time"

	"github.com/upgraph/upgraph/tree/manifest"
)

// TestRolloutClock: the service sleeps until the next bucket opens when
// that comes before --interval, and regenerates from then on.
func TestRolloutClock(t *testing.T) {
	now := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	var c rolloutClock
	c.set(&manifest.Manifest{Rollouts: &manifest.Rollouts{NextChange: now.Add(90 * time.Second).Format(time.RFC3339)}})
	if got := c.wait(5*time.Minute, now); got != 90*time.Second {
		t.Errorf("wait = %v, want 90s (the next opening)", got)
	}
	if got := c.wait(time.Minute, now); got != time.Minute {
		t.Errorf("wait = %v, want the interval", got)
	}
	if c.due("", now) || !c.due("", now.Add(90*time.Second)) {
		t.Error("due before the opening, or not at it")
	}
	if got := c.wait(time.Minute, now.Add(time.Hour)); got != 0 {
		t.Errorf("wait past the opening = %v, want 0", got)
	}
	c.set(&manifest.Manifest{})
	if c.due("", now.Add(time.Hour)) || c.wait(time.Minute, now) != time.Minute {
		t.Error("a tree without rollouts is due, or shortens the wait")
	}
}
