package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/upgraph/upgraph/internal/cputime"
)

// v0StuckWalk is v0Stuck as it was before v0WalkEnds: every entry's
// next found by asking the whole order, every walk followed from its
// entry (quadratic on a long chain). The oracle of TestV0StuckMatchesWalk.
func v0StuckWalk(ch *Channel) map[*Entry]*Entry {
	next := make(map[*Entry]*Entry, len(ch.Entries))
	for _, e := range ch.Entries {
		if e.Bundle == nil {
			continue
		}
		inst := newV0Installed(e.Bundle.InstalledV0())
		for _, c := range ch.v0Chain {
			if len(v0Edges(c, inst)) > 0 {
				if c != e {
					next[e] = c
				}
				break
			}
		}
	}
	ends := map[*Entry]*Entry{}
	for _, e := range ch.Entries {
		cur, seen := e, map[*Entry]bool{e: true}
		for next[cur] != nil && !seen[next[cur]] {
			cur = next[cur]
			seen[cur] = true
		}
		ends[e] = cur
	}
	return ends
}

// TestV0StuckMatchesWalk: v0Stuck's picks and walk ends (v0WalkEnds)
// are the direct walk's for every entry of generated channels (loops,
// skips, skipRanges, Prohibited bundles, entries without a bundle) and
// of the shared catalog, and it reports the same problem.
func TestV0StuckMatchesWalk(t *testing.T) {
	var cats []*Catalog
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 5))
		cats = append(cats, Convert(generatedChannel(t, rng, 1+rng.IntN(80))))
	}
	cats = append(cats, Convert(sharedConfig(t)))
	checked, loops := 0, 0
	for _, c := range cats {
		for _, p := range c.Packages {
			for _, ch := range p.Channels {
				if ch.v0Err != nil || len(ch.v0Chain) == 0 {
					continue
				}
				want := v0StuckWalk(ch)
				next := v0Picks(ch)
				got := v0WalkEnds(ch.Entries, next)
				for _, e := range ch.Entries {
					checked++
					if got[e] != want[e] {
						t.Errorf("%s/%s: the walk from %s ends at %s, want %s", p.Name, ch.Name, e.Name, got[e].Name, want[e].Name)
					}
					if w := want[e]; next[w] != nil {
						loops++
					}
				}
			}
		}
	}
	t.Logf("%d entries, %d walks ending at a loop", checked, loops)
	if loops == 0 {
		t.Error("no walk ends at a loop")
	}
}

// BenchmarkV0StuckReplacesChain: the v0Stuck lint on one channel of n
// bundles each replacing the one before; "walk" is the walk per entry
// (v0StuckWalk, the lint before v0WalkEnds), "ends" v0Stuck. CPU time
// per channel.
func BenchmarkV0StuckReplacesChain(b *testing.B) {
	for _, way := range []string{"walk", "ends"} {
		for _, n := range []int{500, 1000, 2000, 4000} {
			b.Run(fmt.Sprintf("%s/%d", way, n), func(b *testing.B) {
				ch := Convert(replacesChain(b, n)).Package("p").Channel("stable")
				b.ResetTimer()
				cpu0 := cputime.Process()
				for b.Loop() {
					if way == "walk" {
						v0StuckWalk(ch)
					} else if _, stuck := v0Stuck(ch); stuck {
						b.Fatal("stuck")
					}
				}
				reportCPU(b, cpu0)
			})
		}
	}
}
