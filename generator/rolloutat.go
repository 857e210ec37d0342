package generator

import (
	"fmt"
	"strconv"
	"time"

	"github.com/upgraph/upgraph/release/rollout"
)

// CheckRolloutFlags refuses a bad --rollout-buckets or --at (set: given)
// before any input is read.
func CheckRolloutFlags(buckets int, at string, atSet bool) error {
	if err := rollout.CheckBuckets(buckets); err != nil {
		return err
	}
	if atSet && at == "" {
		return fmt.Errorf("--at is empty: want RFC 3339 (2026-11-28T08:00:00Z) or Unix seconds")
	}
	_, err := ParseAt(at, time.Time{})
	return err
}

// ParseAt reads --at, the time phased rollouts are computed for: RFC 3339
// or Unix seconds; empty is def.
func ParseAt(s string, def time.Time) (time.Time, error) {
	if s == "" {
		return def, nil
	}
	if sec, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(sec, 0), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--at %q: want RFC 3339 (2026-11-28T08:00:00Z) or Unix seconds", s)
	}
	return t, nil
}
