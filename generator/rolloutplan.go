package generator

import (
	"time"

	"github.com/upgraph/upgraph/release/rollout"
)

// RolloutPlan is the phased-rollout plan of a generation of built with
// buckets buckets, computed for at (docs/rollouts.md): nil when
// graph-data has no rollouts, so such trees are exactly as without the
// feature. A bad number of buckets is refused even then, so that a flag's
// mistake shows before the first rollout is added. `upgraph generate` and
// `upgraph service` both call it.
func RolloutPlan(built *Built, buckets int, at time.Time) (*rollout.Plan, error) {
	if err := rollout.CheckBuckets(buckets); err != nil {
		return nil, err
	}
	if built == nil || len(built.Rollouts) == 0 {
		return nil, nil
	}
	return &rollout.Plan{Rollouts: built.Rollouts, Buckets: buckets, At: at.Unix()}, nil
}
