package model

import (
	"slices"
	"sync"
)

// v1SuccessorIndex locates, among a package's bundles (positions in
// Bundles), those that may be OLM v1 candidates from an installed
// bundle when successors are checked: a bundle is one only if an entry
// of it (in some channel) replaces or skips the installed name or has a
// skipRange, or its version and release equal the installed one's
// (staying). v1Candidates asks about those only, instead of every
// bundle of the package for every installed bundle (which made a
// channel's next/ files quadratic in its entries). Only for the
// legacy reading of versions (BundleReleaseSupport off), the one the
// next/ files use.
type v1SuccessorIndex struct {
	byName map[string][]int // by the name an entry replaces or skips
	ranged []int            // bundles with an entry that has a skipRange
	byVR   []int            // bundles whose version and release parse, in their order (stable)
}

// v1Lazy is a package's index, built once on first use (ResolveV1 runs
// on many goroutines).
type v1Lazy struct {
	once  sync.Once
	index *v1SuccessorIndex
}

func (p *Package) v1Successors() *v1SuccessorIndex {
	p.v1.once.Do(func() { p.v1.index = newV1SuccessorIndex(p) })
	return p.v1.index
}

func newV1SuccessorIndex(p *Package) *v1SuccessorIndex {
	x := &v1SuccessorIndex{byName: map[string][]int{}}
	add := func(name string, i int) {
		if l := x.byName[name]; len(l) == 0 || l[len(l)-1] != i {
			x.byName[name] = append(l, i)
		}
	}
	for i, b := range p.Bundles {
		ranged := false
		for _, ch := range p.Channels {
			e := ch.entryByName[b.Name]
			if e == nil {
				continue
			}
			add(e.Replaces, i)
			for _, s := range e.Skips {
				add(s, i)
			}
			ranged = ranged || e.Range != nil
		}
		if ranged {
			x.ranged = append(x.ranged, i)
		}
		if _, err := bundleVersionRelease(b, false); err == nil {
			x.byVR = append(x.byVR, i)
		}
	}
	slices.SortStableFunc(x.byVR, func(a, b int) int {
		va, _ := bundleVersionRelease(p.Bundles[a], false)
		vb, _ := bundleVersionRelease(p.Bundles[b], false)
		return va.Compare(vb)
	})
	return x
}

// from returns the bundles, in the package's order, that may be
// candidates from the installed bundle name with version and release
// inst (a superset of those v1Candidates keeps).
func (x *v1SuccessorIndex) from(p *Package, name string, inst VersionRelease) []*Bundle {
	pos := slices.Clone(x.byName[name])
	pos = append(pos, x.ranged...)
	vrOf := func(i int) VersionRelease { vr, _ := bundleVersionRelease(p.Bundles[i], false); return vr }
	k, _ := slices.BinarySearchFunc(x.byVR, inst, func(i int, t VersionRelease) int { return vrOf(i).Compare(t) })
	for ; k < len(x.byVR) && vrOf(x.byVR[k]).Compare(inst) == 0; k++ {
		pos = append(pos, x.byVR[k])
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	out := make([]*Bundle, len(pos))
	for j, i := range pos {
		out[j] = p.Bundles[i]
	}
	return out
}
