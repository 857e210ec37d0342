package model

import (
	"fmt"
	"slices"
	"strings"
)

// V0SetQuery is a Subscription whose path V0Set.ResolvePath follows: its
// catalog (spec.source), package, channel ("" for every channel, default
// first), installed bundle ("" for a new install) and startingCSV.
type V0SetQuery struct {
	Catalog     string
	Package     string
	Channel     string
	Installed   string
	StartingCSV string
}

// V0Held says OLM v0 stays at At: every candidate from it is passed over
// because its dependencies cannot be satisfied (Reason
// unsatisfied-dependency).
type V0Held struct {
	At         string         `json:"at"`
	Reason     string         `json:"reason"`
	Message    string         `json:"message"`
	PassedOver []V0PassedOver `json:"passedOver"`
	// PassedOverTotal is set only in a written next/ file whose
	// PassedOver is cut (InstalledView.Bounded).
	PassedOverTotal int `json:"passedOverTotal,omitempty"`
}

// V0SetResult is ResolveV0 over a catalog set with dependencies: the hops
// of the Subscription (each with its dependencies' picks, the providers
// installed with it and the candidates passed over), the catalog it
// resolves in, and every resolution's whole answer (Resolutions: what a
// mirror set must hold; not written to files).
type V0SetResult struct {
	V0Result
	Catalog string `json:"catalog"`
	// Unsatisfied is, when a resolution fails (Error), what it could not
	// satisfy.
	Unsatisfied []V0PassedOver `json:"unsatisfied,omitempty"`
	Resolutions []V0Resolution `json:"-"`
}

// v0PathResolutionsMin bounds ResolvePath besides the channel's length:
// providers move too (each by the Subscription OLM creates for it).
const v0PathResolutionsMin = 64

// ResolvePath follows OLM v0 from the installed bundle one resolution at
// a time, as ResolveV0 does, with dependencies: each resolution is
// Resolve over the namespace's Subscriptions — the query's and one per
// provider installed so far (OLM creates a Subscription to the
// provider's catalog and channel) — and the path ends when nothing moves
// (Held says why when candidates were passed over), a bundle repeats
// (an error), or a resolution fails (Error). At most
// 64 + 4 × the channel's length resolutions are made.
func (s *V0Set) ResolvePath(q V0SetQuery) V0SetResult {
	r := V0SetResult{V0Result: V0Result{Semantics: SemanticsV0Set, Channel: q.Channel, PathToHead: []Hop{}}, Catalog: q.Catalog}
	m := s.Member(q.Catalog)
	if m == nil {
		r.Error = fmt.Sprintf("no catalog %s in the set (%s)", q.Catalog, strings.Join(s.Names(), ", "))
		return r
	}
	var pkg *Package
	if m.Catalog != nil {
		pkg = m.Catalog.Package(q.Package)
	}
	if pkg == nil {
		r.Error = fmt.Sprintf("no operators found in package %s in catalog %s", q.Package, q.Catalog)
		return r
	}
	order, err := pkg.v0Order(V0Query{Channel: q.Channel})
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if len(order) == 0 {
		r.Error = fmt.Sprintf("no channel entries to order in package %s", pkg.Name)
		return r
	}
	r.Head = order[0].Name
	subs := []V0Subscription{{Catalog: q.Catalog, Package: q.Package, Channel: q.Channel, Installed: q.Installed, StartingCSV: q.StartingCSV}}
	seenMain := map[string]bool{}
	if q.Installed != "" {
		seenMain[q.Installed] = true
	}
	seenState := map[string]bool{v0StateKey(subs): true}
	bound := v0PathResolutionsMin + 4*len(order)
	for step := 0; ; step++ {
		if step == bound {
			r.Error = fmt.Sprintf("more than %d resolutions: not modelled further", bound)
			break
		}
		t := s.pathStep(subs)
		r.Resolutions = append(r.Resolutions, t.res)
		if t.res.Error != "" {
			r.Unsatisfied = t.res.Unsatisfied
			if n := len(r.PathToHead); n > 0 {
				r.Error = fmt.Sprintf("at %s: %s", r.PathToHead[n-1].Name, t.res.Error)
			} else {
				r.Error = t.res.Error
			}
			break
		}
		if t.hop != nil {
			if seenMain[t.hop.Name] {
				r.Error = fmt.Sprintf("OLM v0 updates loop: %s is reached again", t.hop.Name)
				break
			}
			seenMain[t.hop.Name] = true
			r.PathToHead = append(r.PathToHead, *t.hop)
		}
		if !t.moved {
			r.Held = t.held
			if r.Held == nil {
				r.Stranded = pkg.v0Stranded(q.Channel, subs[0].Installed)
			}
			break
		}
		subs = t.subs
		key := v0StateKey(subs)
		if seenState[key] {
			r.Error = "OLM v0 resolutions loop: the namespace returns to an earlier state"
			break
		}
		seenState[key] = true
	}
	if len(r.PathToHead) > 0 {
		r.Next = &r.PathToHead[0]
		r.ReachesHead = r.PathToHead[len(r.PathToHead)-1].Name == r.Head
	} else {
		r.ReachesHead = q.Installed != "" && q.Installed == r.Head
	}
	return r
}

// v0PathStep is one resolution of ResolvePath from the Subscriptions
// subs: the resolution, the Subscriptions after it (subs when nothing
// moved), whether anything moved, the hop of the query's Subscription
// (nil when it stays) and, when nothing moved and candidates were passed
// over, why it is held. It depends on subs alone.
type v0PathStep struct {
	res   V0Resolution
	subs  []V0Subscription
	moved bool
	hop   *Hop
	held  *V0Held
}

// pathStep makes one resolution of ResolvePath from subs (subs[0] is the
// query's Subscription); subs is not modified.
func (s *V0Set) pathStep(subs []V0Subscription) v0PathStep {
	t := v0PathStep{res: s.Resolve(subs), subs: subs}
	if t.res.Error != "" {
		return t
	}
	main := t.res.Subscriptions[0]
	if main.Next != nil && main.Next.Bundle == subs[0].Installed {
		// The installed CSV's own catalog entry: no update (V0Next).
		main.Next = nil
	}
	next := slices.Clone(subs)
	for i, sr := range t.res.Subscriptions {
		if sr.Next != nil && sr.Next.Bundle != subs[i].Installed {
			next[i].Installed, next[i].StartingCSV = sr.Next.Bundle, ""
			t.moved = true
		}
	}
	for _, p := range t.res.Providers {
		next = append(next, V0Subscription{Catalog: p.Catalog, Package: p.Package, Channel: p.Channel, Installed: p.Bundle})
		t.moved = true
	}
	if main.Next != nil {
		t.hop = &Hop{Name: main.Next.Bundle, Version: main.Next.Version, Channel: main.Next.Channel, Via: main.Via,
			Dependencies: main.Dependencies, Providers: t.res.Providers, PassedOver: main.PassedOver}
	}
	if !t.moved && len(main.PassedOver) > 0 {
		var msgs []string
		for _, po := range main.PassedOver {
			msgs = append(msgs, po.Message)
		}
		t.held = &V0Held{At: subs[0].Installed, Reason: ReasonUnsatisfiedDependency, PassedOver: main.PassedOver,
			Message: fmt.Sprintf("OLM v0 stays at %s: %s", subs[0].Installed, strings.Join(firstStrings(msgs, 3), "; "))}
	}
	if t.moved {
		t.subs = next
	}
	return t
}

// v0StateKey names the namespace's installed bundles.
func v0StateKey(subs []V0Subscription) string {
	parts := make([]string, len(subs))
	for i, s := range subs {
		parts[i] = s.Catalog + "/" + s.Package + "/" + s.Installed
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// v0Stranded is ResolveV0's Stranded for a Subscription that stays at
// installed: the first entry with an edge from it is Prohibited (nil when
// it is not, or installed is not a bundle of p).
func (p *Package) v0Stranded(channel, installed string) *V0Stranded {
	b := p.Bundle(installed)
	if b == nil {
		return nil
	}
	in := b.InstalledV0()
	r := p.ResolveV0(V0Query{Channel: channel, Installed: &in})
	if len(r.PathToHead) > 0 {
		return nil
	}
	return r.Stranded
}
