// Package rollout is the phased-rollout model of upgraph (docs/rollouts.md):
// a release offered to a growing share of clusters, following Fedora
// CoreOS's Cincinnati (coreos/fedora-coreos-cincinnati 95388bdf,
// commons/src/policy.rs throttle_rollouts; fcos-policy-engine/src/main.rs
// compute_wariness), approximated with N static buckets of clients so that
// a tree of files can serve it. Parsing graph-data's rollouts/ lives in
// load.go, the throttling and bucket arithmetic here, the hash the edges
// share in hash.go.
package rollout

import (
	"slices"
	"time"
)

// Rollout is one release's rollout, FCOS's three fields: before Start no
// cluster is offered it, not even the canary (wariness 0); from Start the share
// offered is StartValue, growing linearly to 1 over Duration; with no
// Duration it stays at StartValue.
type Rollout struct {
	// Version is the release, as in graph-data's channel files.
	Version string
	// Channels limits the rollout to these channels (nil: every channel
	// the release is in).
	Channels []string
	// StartEpoch is FCOS's start_epoch, in Unix seconds.
	StartEpoch int64
	// StartValue is FCOS's start_percentage: a fraction in [0, 1]
	// despite the name.
	StartValue float64
	// DurationMinutes is FCOS's duration_minutes; 0 means none (the
	// rollout stays at StartValue). FCOS treats 0 as 1 minute when the
	// key is given; validate refuses 0.
	DurationMinutes int64
	// File and Line locate the rollout in graph-data.
	File string
	Line int
}

// InChannel reports whether the rollout applies in channel.
func (r *Rollout) InChannel(channel string) bool {
	return r.Channels == nil || slices.Contains(r.Channels, channel)
}

// End is when the rollout reaches 1 (FCOS: start + 60·duration); zero
// without a duration.
func (r *Rollout) End() int64 {
	if r.DurationMinutes <= 0 {
		return 0
	}
	return r.StartEpoch + 60*r.DurationMinutes
}

// Throttling is FCOS's throttling at Unix time now: 0 before the start,
// start_value + (1 − start_value)·(now − start)/(60·duration) during, 1
// after the end (strictly after, as FCOS compares now > end), start_value
// from the start on without a duration.
func (r *Rollout) Throttling(now int64) float64 {
	if now < r.StartEpoch {
		return 0
	}
	if r.DurationMinutes <= 0 {
		return r.StartValue
	}
	end := r.End()
	if now > end {
		return 1
	}
	rate := (1 - r.StartValue) / float64(end-r.StartEpoch)
	return r.StartValue + rate*float64(now-r.StartEpoch)
}

// Offered reports whether bucket k of n is offered the release at now:
// FCOS hides a release from a client whose wariness exceeds the
// throttling, and bucket k holds wariness in ((k−1)/n, k/n], so the whole
// bucket is offered iff k/n ≤ throttling (conservative: a bucket opens
// when its most wary client would). Bucket 0 is wariness 0 exactly (the
// canary, rollout_wariness=0): offered everything that has started, as
// issue 28 says. FCOS differs before the start: its throttling is 0 there
// and it hides a release only from wariness > throttling, so it offers
// wariness 0 a release before its start_epoch (commons/src/policy.rs
// throttle_rollouts, 95388bdf); no bucket here is offered a release
// that has not started.
func (r *Rollout) Offered(k, n int, now int64) bool {
	if now < r.StartEpoch {
		return false
	}
	return upper(k, n) <= r.Throttling(now)
}

// upper is bucket k's highest wariness, k/n. The division is the one
// FCOS's comparison would see for a client of that wariness.
func upper(k, n int) float64 { return float64(k) / float64(n) }

// Opens is the first Unix second at which bucket k of n is offered the
// release, and false if it never is (no duration and k/n above the start
// value). A bucket offered at the start opens at the start (or at once,
// the canary bucket 0, whatever the start value).
func (r *Rollout) Opens(k, n int) (int64, bool) {
	if r.Offered(k, n, r.StartEpoch) {
		return r.StartEpoch, true
	}
	if r.DurationMinutes <= 0 {
		return 0, false
	}
	// Throttling is non-decreasing in time, so the first second offered
	// is found by bisection between the start (not offered) and one
	// second past the end (offered: throttling 1); exact whatever the
	// floating-point rounding of the formula.
	lo, hi := r.StartEpoch, r.End()+1
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if r.Offered(k, n, mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// OpenBuckets counts the buckets 1..n offered the release at now (the
// canary bucket 0, offered from the start, is not counted).
func (r *Rollout) OpenBuckets(n int, now int64) int {
	open := 0
	for k := 1; k <= n; k++ {
		if r.Offered(k, n, now) {
			open++
		}
	}
	return open
}

// NextChange is the first second after now at which some bucket of n
// (the canary bucket 0 included: it opens at the start) is offered some
// release it is not offered at now, and false when no answer changes any
// more.
func NextChange(rs []Rollout, n int, now int64) (int64, bool) {
	next, found := int64(0), false
	for i := range rs {
		for k := 0; k <= n; k++ {
			t, ok := rs[i].Opens(k, n)
			if ok && t > now && (!found || t < next) {
				next, found = t, true
			}
		}
	}
	return next, found
}

// Unix converts t to Unix seconds, rounding down.
func Unix(t time.Time) int64 { return t.Unix() }
