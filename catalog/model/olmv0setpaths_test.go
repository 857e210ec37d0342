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

// v0SetPathsAgree checks, for every entry of every channel of the
// packages of c declaring OLM v0 dependencies, that BoundedViewInSets
// (the memo of ResolvePath) gives the bytes of InstalledViewInSets
// (ResolvePath walked whole) cut by Bounded, over the set s with c as
// member name. It returns how many answers the memo gave and how many it
// left to ResolvePath, and how many were cut, held, and errors.
func v0SetPathsAgree(t *testing.T, s *V0Set, name string, c *Catalog) (answered, walked, cut, held, errs int) {
	t.Helper()
	for _, p := range c.Packages {
		if !p.DeclaresV0Dependencies() {
			continue
		}
		for _, ch := range p.Channels {
			paths := ch.V0Paths()
			for _, e := range ch.Entries {
				direct := e.InstalledViewInSets(nil, s, name)
				direct.Bounded(ch)
				want, err := json.Marshal(direct)
				if err != nil {
					t.Fatal(err)
				}
				view := e.BoundedViewInSets(nil, s, name, paths)
				got, err := json.Marshal(view)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("%s/%s/%s: memoized view\n%s\nwant (ResolvePath)\n%s", p.Name, ch.Name, e.Name, got, want)
				}
				if view.OLMV0.PathToHeadTotal > 0 {
					cut++
				}
				if view.OLMV0.Held != nil {
					held++
				}
				if view.OLMV0.Error != "" {
					errs++
				}
			}
			if paths.set != nil {
				answered, walked = answered+paths.set.answered, walked+paths.set.walked
			}
		}
	}
	return answered, walked, cut, held, errs
}

// TestV0SetPathsChain: on a replaces chain whose bundles all require a
// package, the memo answers every entry (none is walked whole) with
// ResolvePath's bytes.
func TestV0SetPathsChain(t *testing.T) {
	for _, n := range []int{1, 2, 17, 40} {
		c := depChain(t, n)
		s := NewV0Set([]V0CatalogMember{{Name: "cat", Catalog: c}})
		answered, walked, cut, _, _ := v0SetPathsAgree(t, s, "cat", c)
		if answered != n || walked != 0 || cut != max(0, n-1-FileListMax) {
			t.Errorf("chain of %d: answered %d, walked %d, cut %d", n, answered, walked, cut)
		}
	}
}

// TestV0SetPathsGenerated: the memo agrees with ResolvePath on
// generated packages with dependencies: a channel as generatedChannel
// makes them (skips, skipRanges, loops, Prohibited bundles, entries
// without a bundle) whose bundles require packages with channels of
// their own (satisfiable, unsatisfiable: held, invalid: an error).
func TestV0SetPathsGenerated(t *testing.T) {
	var answered, walked, cut, held, errs int
	for seed := range uint64(150) {
		rng := rand.New(rand.NewPCG(seed, 11))
		c := generatedDepCatalog(t, rng, 1+rng.IntN(60))
		s := NewV0Set([]V0CatalogMember{{Name: "a", Catalog: c}, {Name: "b", Priority: 3, Catalog: c}})
		a, w, ct, h, e := v0SetPathsAgree(t, s, "a", c)
		answered, walked, cut, held, errs = answered+a, walked+w, cut+ct, held+h, errs+e
	}
	t.Logf("answered %d, walked %d, cut %d, held %d, errors %d", answered, walked, cut, held, errs)
	if answered == 0 || walked == 0 || cut == 0 || held == 0 || errs == 0 {
		t.Errorf("the generated catalogs miss a case: answered %d, walked %d, cut %d, held %d, errors %d", answered, walked, cut, held, errs)
	}
}

// generatedDepCatalog is generatedChannel's package p whose bundles
// may require package dep (chains of versions 1.0.0 …, each requiring
// dep2 at times), an API nobody provides, or hold an invalid dependency.
func generatedDepCatalog(tb testing.TB, rng *rand.Rand, n int) *Catalog {
	tb.Helper()
	cfg := generatedChannel(tb, rng, n)
	if rng.IntN(3) > 0 {
		// Mostly a channel OLM v0 can order, every entry with a bundle:
		// its paths are long.
		have := map[string]bool{}
		for _, b := range cfg.Bundles {
			have[b.Name] = true
		}
		for i := range cfg.Channels[0].Entries {
			e := &cfg.Channels[0].Entries[i]
			if i > 0 {
				e.Replaces = cfg.Channels[0].Entries[i-1].Name
			}
			if !have[e.Name] {
				cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: "olm.bundle", Package: "p", Name: e.Name, Image: "quay.io/x/" + e.Name,
					Properties: []declcfg.Property{{Type: "olm.package", Value: json.RawMessage(fmt.Sprintf(`{"packageName":"p","version":"2.0.%d"}`, i))}}})
			}
		}
	}
	pkgReq := func(pkg, rng string) declcfg.Property {
		return declcfg.Property{Type: "olm.package.required", Value: json.RawMessage(fmt.Sprintf(`{"packageName":%q,"versionRange":%q}`, pkg, rng))}
	}
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		switch rng.IntN(12) {
		case 0, 1, 2, 3, 4:
			b.Properties = append(b.Properties, pkgReq("dep", ">=1.0.0"))
		case 5:
			b.Properties = append(b.Properties, pkgReq("dep", fmt.Sprintf(">=%d.0.0", 1+rng.IntN(4))))
		case 6:
			b.Properties = append(b.Properties, pkgReq("dep", "<2.0.0"))
		case 7:
			b.Properties = append(b.Properties, declcfg.Property{Type: "olm.gvk.required", Value: json.RawMessage(`{"group":"g.io","version":"v1","kind":"Nobody"}`)})
		case 8:
			if rng.IntN(3) == 0 {
				b.Properties = append(b.Properties, pkgReq("dep", "not a range"))
			}
		}
	}
	var d strings.Builder
	m := 1 + rng.IntN(4)
	for _, pkg := range []string{"dep", "dep2"} {
		fmt.Fprintf(&d, `{"schema":"olm.package","name":%q,"defaultChannel":"stable"}`+"\n", pkg)
		var entries []string
		for j := range m {
			e := fmt.Sprintf(`{"name":"%s.v%d.0.0"`, pkg, j+1)
			if j > 0 {
				e += fmt.Sprintf(`,"replaces":"%s.v%d.0.0"`, pkg, j)
			}
			entries = append(entries, e+"}")
		}
		fmt.Fprintf(&d, `{"schema":"olm.channel","package":%q,"name":"stable","entries":[%s]}`+"\n", pkg, strings.Join(entries, ","))
		for j := range m {
			props := fmt.Sprintf(`{"type":"olm.package","value":{"packageName":%q,"version":"%d.0.0"}}`, pkg, j+1)
			if pkg == "dep" && rng.IntN(3) == 0 {
				props += `,{"type":"olm.package.required","value":{"packageName":"dep2","versionRange":">=1.0.0"}}`
			}
			fmt.Fprintf(&d, `{"schema":"olm.bundle","package":%q,"name":"%s.v%d.0.0","image":"r.example.com/%s:%d","properties":[%s]}`+"\n", pkg, pkg, j+1, pkg, j+1, props)
		}
	}
	deps, err := declcfg.LoadReader(context.Background(), strings.NewReader(d.String()), "deps.json")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Packages = append(cfg.Packages, deps.Packages...)
	cfg.Channels = append(cfg.Channels, deps.Channels...)
	cfg.Bundles = append(cfg.Bundles, deps.Bundles...)
	return Convert(cfg)
}

// TestV0SetPathsSharedCatalog: the memo agrees with ResolvePath for
// every entry of the shared catalog's packages that declare
// dependencies.
func TestV0SetPathsSharedCatalog(t *testing.T) {
	c := Convert(sharedConfig(t))
	s := NewV0Set([]V0CatalogMember{{Name: "a", Catalog: c}, {Name: "b", Priority: 5, Catalog: c}})
	answered, walked, cut, held, errs := v0SetPathsAgree(t, s, "a", c)
	t.Logf("answered %d, walked %d, cut %d, held %d, errors %d", answered, walked, cut, held, errs)
}
