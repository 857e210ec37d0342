package diff

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/upgraph/upgraph/tree/manifest"
)

// RolloutChange is a phased rollout (index.json's rollouts, docs/rollouts.md)
// added, removed or changed between two trees: its schedule, or how many
// buckets are offered the release.
type RolloutChange struct {
	Version  string   `json:"version"`
	Channels []string `json:"channels,omitempty"`
	Status   Status   `json:"status"`
	// Old and New describe the rollout on each side ("" where absent).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// compareRollouts compares the rollouts two trees record; endpoints have
// none to compare.
func compareRollouts(old, new *Source) []RolloutChange {
	side := func(s *Source) map[string]manifest.RolloutRelease {
		out := map[string]manifest.RolloutRelease{}
		if s == nil || !s.IsTree() || s.Tree.Manifest().Rollouts == nil {
			return out
		}
		ro := s.Tree.Manifest().Rollouts
		for _, r := range ro.Releases {
			out[rolloutKey(r)] = r
		}
		return out
	}
	describe := func(s *Source, r manifest.RolloutRelease) string {
		ro := s.Tree.Manifest().Rollouts
		length := "no duration"
		if r.DurationMinutes > 0 {
			length = fmt.Sprintf("%d minutes", r.DurationMinutes)
		}
		return fmt.Sprintf("start %s at %g, %s; %d of %d buckets offered at %s",
			time.Unix(r.StartEpoch, 0).UTC().Format(time.RFC3339), r.StartPercentage, length, r.OpenBuckets, ro.Buckets, ro.At)
	}
	o, n := side(old), side(new)
	var keys []string
	for k := range o {
		keys = append(keys, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []RolloutChange
	for _, k := range keys {
		a, inOld := o[k]
		b, inNew := n[k]
		c := RolloutChange{Version: a.Version, Channels: a.Channels}
		switch {
		case !inOld:
			c.Version, c.Channels, c.Status, c.New = b.Version, b.Channels, Added, describe(new, b)
		case !inNew:
			c.Status, c.Old = Removed, describe(old, a)
		default:
			c.Status, c.Old, c.New = Changed, describe(old, a), describe(new, b)
			if c.Old == c.New {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func rolloutKey(r manifest.RolloutRelease) string {
	return r.Version + "\x00" + strings.Join(r.Channels, ",")
}

// rolloutLines are the text lines of the rollout changes.
func (r *Result) rolloutLines() []line {
	var ls []line
	for _, c := range r.Rollouts {
		where := "every channel"
		if len(c.Channels) > 0 {
			where = strings.Join(c.Channels, ", ")
		}
		if c.Old != "" {
			ls = append(ls, line{sign: '-', text: fmt.Sprintf("rollout %s (%s): %s", c.Version, where, c.Old)})
		}
		if c.New != "" {
			ls = append(ls, line{sign: '+', text: fmt.Sprintf("rollout %s (%s): %s", c.Version, where, c.New)})
		}
	}
	return ls
}
