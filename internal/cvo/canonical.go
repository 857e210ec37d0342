package cvo

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// Snapshot is an order-normalised GetUpdates result: what a cluster would
// store in ClusterVersion status. Compare two with reflect.DeepEqual or ==
// on String() (which is meant for diffs).
type Snapshot struct {
	Current            Release
	Updates            []Release           // newest first, as the CVO stores them
	ConditionalUpdates []ConditionalUpdate // newest first; risks and rules in graph order
	Error              string              // "Reason: Message", "" on success
}

// Canonical normalises a GetUpdates or Updates result; it can be called as
// Canonical(c.GetUpdates(...)). On error only the error is kept, because the
// CVO discards current and updates whenever GetUpdates fails. Risk and rule
// order is kept: rule order is precedence, and risk order drives the
// Recommended condition's message.
func Canonical(current Release, updates []Release, conditional []ConditionalUpdate, err error) Snapshot {
	if err != nil {
		return Snapshot{Error: err.Error()}
	}
	s := Snapshot{Current: copyRelease(current)}
	for _, u := range updates {
		s.Updates = append(s.Updates, copyRelease(u))
	}
	for _, c := range conditional {
		cu := ConditionalUpdate{Release: copyRelease(c.Release)}
		for _, r := range c.Risks {
			r.MatchingRules = nilIfEmpty(slices.Clone(r.MatchingRules))
			cu.Risks = append(cu.Risks, r)
		}
		s.ConditionalUpdates = append(s.ConditionalUpdates, cu)
	}
	sortNewestFirst(s.Updates, func(r Release) Release { return r })
	sortNewestFirst(s.ConditionalUpdates, func(c ConditionalUpdate) Release { return c.Release })
	return s
}

// sortNewestFirst orders by semver precedence, newest first (the CVO's
// setAvailableUpdates order), then by version string and image so that
// entries of equal precedence (build metadata) sort deterministically. Each
// version is parsed once rather than once per comparison.
func sortNewestFirst[T any](items []T, release func(T) Release) {
	type keyed struct {
		item T
		rel  Release
		v    semver.Version
		ok   bool
	}
	ks := make([]keyed, len(items))
	for i, it := range items {
		r := release(it)
		v, err := semver.Parse(r.Version)
		ks[i] = keyed{it, r, v, err == nil}
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if a.ok && b.ok {
			if c := a.v.Compare(b.v); c != 0 {
				return c > 0
			}
		}
		if a.rel.Version != b.rel.Version {
			return a.rel.Version > b.rel.Version
		}
		return a.rel.Image < b.rel.Image
	})
	for i := range ks {
		items[i] = ks[i].item
	}
}

func copyRelease(r Release) Release {
	r.Channels = nilIfEmpty(slices.Clone(r.Channels))
	return r
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// String renders the snapshot one fact per line, so a text diff of two
// snapshots points at the differing release, risk or rule.
func (s Snapshot) String() string {
	var b strings.Builder
	if s.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", s.Error)
		return b.String()
	}
	fmt.Fprintf(&b, "current: %s\n", formatRelease(s.Current))
	for _, u := range s.Updates {
		fmt.Fprintf(&b, "update: %s\n", formatRelease(u))
	}
	for _, c := range s.ConditionalUpdates {
		fmt.Fprintf(&b, "conditional: %s\n", formatRelease(c.Release))
		for _, r := range c.Risks {
			fmt.Fprintf(&b, "  risk %q url=%q message=%q\n", r.Name, r.URL, r.Message)
			for _, m := range r.MatchingRules {
				fmt.Fprintf(&b, "    rule %s promql=%q\n", m.Type, m.PromQL)
			}
		}
	}
	return b.String()
}

func formatRelease(r Release) string {
	return fmt.Sprintf("%s image=%q url=%q arch=%q channels=%q", r.Version, r.Image, r.URL, r.Architecture, r.Channels)
}
