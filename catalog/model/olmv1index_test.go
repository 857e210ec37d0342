package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// v1IndexAgrees checks, for every entry with a bundle of every channel
// of c, that OLM v1's candidates with the successor index are those of
// the scan over every bundle (with the channel filter and without), in
// the same order. It returns how many candidate lists it compared.
func v1IndexAgrees(t *testing.T, c *Catalog) int {
	t.Helper()
	n := 0
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Entries {
				if e.Bundle == nil {
					continue
				}
				in, err := e.Bundle.InstalledV1(false)
				if err != nil {
					continue
				}
				for _, q := range []V1Query{{Channels: []string{ch.Name}, Installed: &in}, {Installed: &in}} {
					got, gerr := p.v1CandidatesOf(q, nil, true)
					want, werr := p.v1CandidatesOf(q, nil, false)
					g, w := v1CandsText(got, gerr), v1CandsText(want, werr)
					if g != w {
						t.Errorf("%s/%s/%s channels %v: indexed candidates\n%s\nwant (every bundle)\n%s", p.Name, ch.Name, e.Name, q.Channels, g, w)
					}
					n++
				}
			}
		}
	}
	return n
}

func v1CandsText(cs []v1Cand, err error) string {
	out := fmt.Sprint(err)
	for _, c := range cs {
		b, _ := json.Marshal(c.c)
		out += "\n" + string(b) + " " + fmt.Sprint(c.vrErr)
	}
	return out
}

// TestV1IndexSharedCatalog: the index gives the scan's candidates for
// every entry of the shared catalog.
func TestV1IndexSharedCatalog(t *testing.T) {
	if n := v1IndexAgrees(t, Convert(sharedConfig(t))); n == 0 {
		t.Error("no candidate list compared")
	}
}

// TestV1IndexGenerated: the same on generated channels (skips,
// skipRanges, repeated versions, entries without bundles) and replaces
// chains.
func TestV1IndexGenerated(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 11))
		v1IndexAgrees(t, Convert(generatedChannel(t, rng, 1+rng.IntN(80))))
	}
	for _, n := range []int{1, 17, 200} {
		v1IndexAgrees(t, Convert(replacesChain(t, n)))
	}
}
