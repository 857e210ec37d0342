package model

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// v0PathsAgree checks, for every entry with a bundle of every channel
// of c, that V0Paths.Bounded and BoundedViewInSets give the bytes of
// the direct walk (ResolveV0, InstalledViewInSets) cut by Bounded. It
// returns how many paths were cut, ended in a loop, were stranded, and
// started off the OLM v0 order, so that a test can say it saw them.
func v0PathsAgree(t *testing.T, c *Catalog) (cut, loops, stranded, offOrder int) {
	t.Helper()
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			paths := ch.V0Paths()
			for _, e := range ch.Entries {
				direct := e.InstalledViewInSets(nil, nil, "")
				direct.Bounded(ch)
				want, err := json.Marshal(direct)
				if err != nil {
					t.Fatal(err)
				}
				got, err := json.Marshal(e.BoundedViewInSets(nil, nil, "", paths))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("%s/%s/%s: memoized view\n%s\nwant (direct walk)\n%s", p.Name, ch.Name, e.Name, got, want)
					continue
				}
				if e.Bundle == nil {
					continue
				}
				r := paths.Bounded(e)
				if r.PathToHeadTotal > 0 {
					cut++
				}
				if strings.Contains(r.Error, "loop") {
					loops++
				}
				if r.Stranded != nil {
					stranded++
				}
				if !e.OnV0Chain && ch.v0Err == nil {
					offOrder++
				}
			}
		}
	}
	return cut, loops, stranded, offOrder
}

// TestV0PathsSharedCatalog: the memo agrees with the direct walk for
// every entry of the shared catalog (235 of its files have a cut path).
func TestV0PathsSharedCatalog(t *testing.T) {
	c := Convert(sharedConfig(t))
	cut, loops, stranded, off := v0PathsAgree(t, c)
	t.Logf("cut %d, loops %d, stranded %d, off the order %d", cut, loops, stranded, off)
	if cut != 235 {
		t.Errorf("%d cut paths, want 235 (docs/operators.md)", cut)
	}
}

// TestV0PathsGenerated: the memo agrees with the direct walk on
// generated channels: replaces chains longer than FileListMax, skips
// (entries off the order), skipRanges reaching forward and back (loops),
// Prohibited bundles (stranded), entries without a bundle, repeated
// versions.
func TestV0PathsGenerated(t *testing.T) {
	var cut, loops, stranded, off int
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 1 + rng.IntN(80)
		c := Convert(generatedChannel(t, rng, n))
		a, b, s, o := v0PathsAgree(t, c)
		cut, loops, stranded, off = cut+a, loops+b, stranded+s, off+o
	}
	for _, n := range []int{1, 16, 17, 33, 200} {
		c := Convert(replacesChain(t, n))
		a, _, _, _ := v0PathsAgree(t, c)
		if want := max(0, n-1-FileListMax); a != want {
			t.Errorf("chain of %d: %d cut paths, want %d", n, a, want)
		}
	}
	t.Logf("generated: cut %d, loops %d, stranded %d, off the order %d", cut, loops, stranded, off)
	if cut == 0 || loops == 0 || stranded == 0 || off == 0 {
		t.Errorf("the generated channels miss a case: cut %d, loops %d, stranded %d, off the order %d", cut, loops, stranded, off)
	}
}

// generatedChannel is package p with channel stable of n entries
// p.v1.0.0 …, mostly each replacing the one before, with random skips,
// skipRanges, Prohibited bundles, missing bundles, repeated versions and
// releases (build metadata).
func generatedChannel(tb testing.TB, rng *rand.Rand, n int) *declcfg.DeclarativeConfig {
	tb.Helper()
	name := func(i int) string { return fmt.Sprintf("p.v1.0.%d", i) }
	var b strings.Builder
	b.WriteString(`{"schema":"olm.package","name":"p","defaultChannel":"stable"}` + "\n")
	b.WriteString(`{"schema":"olm.channel","name":"stable","package":"p","entries":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":%q`, name(i))
		switch {
		case i == 0:
		case rng.IntN(20) == 0:
			fmt.Fprintf(&b, `,"replaces":%q`, name(rng.IntN(n)))
		default:
			fmt.Fprintf(&b, `,"replaces":%q`, name(i-1))
		}
		if i > 1 && rng.IntN(8) == 0 {
			fmt.Fprintf(&b, `,"skips":[%q]`, name(rng.IntN(i)))
		}
		switch rng.IntN(30) {
		case 0:
			fmt.Fprintf(&b, `,"skipRange":">=1.0.%d"`, rng.IntN(n))
		case 1:
			lo := rng.IntN(n)
			fmt.Fprintf(&b, `,"skipRange":">=1.0.%d <1.0.%d"`, lo, lo+rng.IntN(n))
		case 2:
			b.WriteString(`,"skipRange":"not a range"`)
		}
		b.WriteString("}")
	}
	b.WriteString("]}\n")
	for i := range n {
		if rng.IntN(15) == 0 {
			continue // an entry without a bundle
		}
		v := fmt.Sprintf("1.0.%d", i)
		switch rng.IntN(15) {
		case 0:
			v = fmt.Sprintf("1.0.%d", rng.IntN(n))
		case 1:
			v = fmt.Sprintf("1.0.%d+%d", rng.IntN(n), rng.IntN(3)) // a release (OLM v1's legacy reading)
		}
		props := fmt.Sprintf(`{"type":"olm.package","value":{"packageName":"p","version":%q}}`, v)
		if rng.IntN(10) == 0 {
			props += `,{"type":"olm.deprecated","value":{}}`
		}
		fmt.Fprintf(&b, `{"schema":"olm.bundle","name":%q,"package":"p","image":"quay.io/x/p@sha256:%064d","properties":[%s]}`+"\n", name(i), i, props)
	}
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(b.String()), "catalog.json")
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}
