package model

import (
	"fmt"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// boundChain is package p, channel a, of n bundles p.v1.0.0 … p.v1.0.(n-1),
// each replacing the one before and, with ranges, each with a skipRange
// over every version before it.
func boundChain(n int, ranges bool) *Channel {
	versions := map[string]string{}
	var es []declcfg.ChannelEntry
	for i := range n {
		name := fmt.Sprintf("p.v1.0.%d", i)
		versions[name] = fmt.Sprintf("1.0.%d", i)
		e := ce(name, "")
		if i > 0 {
			e.Replaces = fmt.Sprintf("p.v1.0.%d", i-1)
			if ranges {
				e.SkipRange = fmt.Sprintf("<1.0.%d", i)
			}
		}
		es = append(es, e)
	}
	return Convert(catalogOf("p", "a", versions, newTestChannel("p", "a", es...))).Package("p").Channel("a")
}

func hopNames(hs []Hop) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Name
	}
	return out
}

// TestBoundedPath: a written view lists at most FileListMax hops of
// OLM v0's path, PathToHeadTotal says how many there are when cut, and
// following the last listed hop's view gives the model's whole path hop
// for hop; Next, ReachesHead and the head stay the whole path's.
func TestBoundedPath(t *testing.T) {
	const n = 3*FileListMax + 5
	ch := boundChain(n, false)
	for i, e := range ch.Entries {
		whole := e.InstalledView()
		v := e.InstalledView()
		v.Bounded(ch)
		p := v.OLMV0
		want := len(whole.OLMV0.PathToHead)
		if want != n-1-i { // entries in declaration order: entry i is n-1-i hops from the head
			t.Fatalf("%s: model path of %d hops, want %d", e.Name, want, n-1-i)
		}
		switch {
		case want <= FileListMax && (p.PathToHeadTotal != 0 || len(p.PathToHead) != want):
			t.Errorf("%s: %d hops cut to %d (total %d), want whole", e.Name, want, len(p.PathToHead), p.PathToHeadTotal)
		case want > FileListMax && (p.PathToHeadTotal != want || len(p.PathToHead) != FileListMax):
			t.Errorf("%s: %d hops listed, total %d; want %d, %d", e.Name, len(p.PathToHead), p.PathToHeadTotal, FileListMax, want)
		}
		if want > 0 && p.Next.Name != whole.OLMV0.Next.Name || p.ReachesHead != whole.OLMV0.ReachesHead || p.Head != whole.OLMV0.Head {
			t.Errorf("%s: next/reachesHead/head changed by the cut", e.Name)
		}
		// The reader's continuation.
		got := hopNames(p.PathToHead)
		for total := max(p.PathToHeadTotal, len(p.PathToHead)); len(got) < total; {
			more := ch.Entry(got[len(got)-1]).InstalledView()
			more.Bounded(ch)
			add := hopNames(more.OLMV0.PathToHead)
			if len(add) == 0 {
				t.Fatalf("%s: continuation at %s lists no hop", e.Name, got[len(got)-1])
			}
			got = append(got, add[:min(len(add), total-len(got))]...)
		}
		if w := hopNames(whole.OLMV0.PathToHead); !slices.Equal(got, w) {
			t.Errorf("%s: continued path %v, want %v", e.Name, got, w)
		}
	}
}

// TestBoundedCandidates: a written view lists OLM v1's first
// FileListMax candidates (the pick first) and CandidatesTotal, the
// model's count, when cut; the pick and the model's order are kept.
func TestBoundedCandidates(t *testing.T) {
	const n = 2*FileListMax + 3
	ch := boundChain(n, true)
	for _, e := range ch.Entries {
		whole := e.InstalledView()
		v := e.InstalledView()
		v.Bounded(ch)
		c, w := v.OLMV1.Candidates, whole.OLMV1.Candidates
		if len(w) > FileListMax {
			if len(c) != FileListMax || v.OLMV1.CandidatesTotal != len(w) {
				t.Errorf("%s: %d candidates listed, total %d; want %d, %d", e.Name, len(c), v.OLMV1.CandidatesTotal, FileListMax, len(w))
			}
		} else if len(c) != len(w) || v.OLMV1.CandidatesTotal != 0 {
			t.Errorf("%s: %d candidates cut to %d (total %d), want whole", e.Name, len(w), len(c), v.OLMV1.CandidatesTotal)
		}
		for i := range c {
			if c[i].Name != w[i].Name {
				t.Errorf("%s: candidate %d is %s, want %s", e.Name, i, c[i].Name, w[i].Name)
			}
		}
		if (v.OLMV1.Pick == nil) != (whole.OLMV1.Pick == nil) || v.OLMV1.Pick != nil && v.OLMV1.Pick.Name != whole.OLMV1.Pick.Name {
			t.Errorf("%s: pick changed by the cut", e.Name)
		}
	}
	// The oldest bundle has every later one as a candidate (and itself).
	if w := len(ch.Entries[0].InstalledView().OLMV1.Candidates); w <= FileListMax {
		t.Fatalf("the test's oldest bundle has %d candidates: not cut", w)
	}
}
