package model

import (
	"fmt"
	"slices"

	"github.com/blang/semver/v4"
)

// Semantics labels say which runtime's rules a selection result encodes.
const (
	SemanticsV0 = "olm-v0: Subscription (operator-lifecycle-manager resolver: sortChannel order, head first, skipped entries dropped; " +
		"candidates have replaces/skips naming the installed CSV or a skipRange holding its version (ParseTolerant); " +
		"a bundle with the legacy olm.deprecated property is Prohibited, never a candidate; the first is taken, one hop per resolution); " +
		"graph only: no dependency, GVK or constraint solving"
	SemanticsV1 = "olm-v1: ClusterExtension (operator-controller resolver: successors by replaces/skips/skipRange from any channel, or the channel filter, plus the installed version; " +
		"bundle-level deprecation last, then highest version and release; the pick is refused when it declares olm.package.required, olm.gvk.required or olm.constraint, with no fallback); " +
		"one catalog; dependencies are refused as upstream does, never solved"
	SemanticsV1Set = "olm-v1: ClusterExtension (operator-controller resolver: successors by replaces/skips/skipRange from any channel, or the channel filter, plus the installed version; " +
		"bundle-level deprecation last, then highest version and release, per catalog; across catalogs a non-deprecated bundle first, then the highest spec.priority, a tie an error; " +
		"the pick is refused when it declares olm.package.required, olm.gvk.required or olm.constraint, with no fallback); " +
		"the named catalog set (every catalog selected and serving); dependencies are refused as upstream does, never solved"
)

// Installed is what a runtime knows of an installed bundle: OLM v0 the
// CSV's name and spec.version, OLM v1 the ClusterExtension's
// BundleMetadata (name, version, and an explicit release when the
// BundleReleaseSupport gate is on).
type Installed struct {
	Name    string  `json:"name"`
	Version string  `json:"version"`
	Release *string `json:"release,omitempty"`
}

// InstalledV0 is the bundle as OLM v0 sees it once installed.
func (b *Bundle) InstalledV0() Installed {
	return Installed{Name: b.Name, Version: b.PackageProperty.Version}
}

// Via is one edge that makes a bundle a candidate: the channel whose
// entry declares it, its type (replaces, skips, skipRange) and, for
// skipRange, the range.
type Via struct {
	Channel string   `json:"channel"`
	Type    EdgeType `json:"type"`
	Range   string   `json:"range,omitempty"`
}

// Hop is a bundle OLM v0 moves to, with the edges that allow it.
type Hop struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Channel string `json:"channel"`
	Via     []Via  `json:"via,omitempty"`
	// Dependencies, Providers and PassedOver are set by V0Set.ResolvePath
	// (olmv0path.go): the hop's dependencies with OLM v0's pick for
	// each, the providers installed with it, and the candidates before
	// it the solver could not take.
	Dependencies []V0DependencyResult `json:"dependencies,omitempty"`
	Providers    []V0Provider         `json:"providers,omitempty"`
	PassedOver   []V0PassedOver       `json:"passedOver,omitempty"`
	// ProvidersTotal and PassedOverTotal are set only in a written
	// next/ file whose lists are cut (InstalledView.Bounded): their
	// whole length.
	ProvidersTotal  int `json:"providersTotal,omitempty"`
	PassedOverTotal int `json:"passedOverTotal,omitempty"`
}

// V0Query is a Subscription's view: its channel ("" for every channel of
// the package: the default channel first, then the others by name), the
// installed CSV (nil for a new install) and, for a new install, a
// startingCSV.
type V0Query struct {
	Channel     string
	Installed   *Installed
	StartingCSV string
}

// V0Result is OLM v0's choice for one installed bundle: the next hop (nil:
// no update) and the hops one resolution at a time until no further
// update, with whether that ends at the head.
type V0Result struct {
	Semantics  string `json:"semantics"`
	Channel    string `json:"channel"`
	Head       string `json:"head,omitempty"`
	Next       *Hop   `json:"next"`
	PathToHead []Hop  `json:"pathToHead"`
	// PathToHeadTotal is set only in a written next/ file whose
	// PathToHead is cut (InstalledView.Bounded): the whole path's number
	// of hops, the rest continuing in the last listed hop's file.
	PathToHeadTotal int  `json:"pathToHeadTotal,omitempty"`
	ReachesHead     bool `json:"reachesHead"`
	// Stranded is set when the updates stop because the next bundle is
	// Prohibited (the legacy olm.deprecated property).
	Stranded *V0Stranded `json:"stranded,omitempty"`
	// Held is set by V0Set.ResolvePath when the updates stop because
	// no candidate's dependencies can be satisfied.
	Held  *V0Held `json:"held,omitempty"`
	Error string  `json:"error,omitempty"`
}

// V0Stranded says OLM v0 stays at At because its successor Bundle is
// Prohibited: the resolver's only candidates from At are bundles it may
// never install.
type V0Stranded struct {
	At       string `json:"at"`
	Bundle   string `json:"bundle"`
	Property string `json:"property"`
	Message  string `json:"message"`
}

func newV0Stranded(at, bundle string) *V0Stranded {
	return &V0Stranded{At: at, Bundle: bundle, Property: propLegacyDeprecate, Message: fmt.Sprintf(
		"OLM v0 never installs %s: it has the legacy %s property (Prohibited), so %s stays", bundle, propLegacyDeprecate, at)}
}

// prohibited says OLM v0 never installs the entry's bundle.
func (e *Entry) prohibited() bool { return e.Bundle != nil && e.Bundle.Prohibited }

// v0Installed is the installed CSV as the resolver's predicates use it.
type v0Installed struct {
	name    string
	version *semver.Version // ParseTolerant; nil when it does not parse
}

func newV0Installed(in Installed) v0Installed {
	i := v0Installed{name: in.Name}
	if v, err := semver.ParseTolerant(in.Version); err == nil {
		i.version = &v
	}
	return i
}

// v0Edges returns the edges of e that lead from the installed CSV:
// ReplacesPredicate (replaces or skips naming it) or
// SkipRangeIncludesPredicate (an invalid skipRange never matches).
func v0Edges(e *Entry, inst v0Installed) []Via {
	var via []Via
	if e.Replaces == inst.name {
		via = append(via, Via{Channel: e.Channel.Name, Type: EdgeReplaces})
	}
	if slices.Contains(e.Skips, inst.name) {
		via = append(via, Via{Channel: e.Channel.Name, Type: EdgeSkips})
	}
	if e.Range != nil && inst.version != nil && e.Range(*inst.version) {
		via = append(via, Via{Channel: e.Channel.Name, Type: EdgeSkipRange, Range: e.SkipRange})
	}
	return via
}

// v0EdgeIndex locates, in a Subscription's order, the entries that may
// have an edge from an installed CSV: by the name their replaces or a
// skip gives, and those with a skipRange. ResolveV0 asks v0Edges about
// those only, in order, instead of the whole order at every hop: each
// of a long replaces chain's n entries walks a path of up to n hops,
// which made O(n) work per hop, O(n³) for a channel's next/ files.
type v0EdgeIndex struct {
	byName map[string][]int
	ranged []int
	buf    []int
}

func newV0EdgeIndex(order []*Entry) *v0EdgeIndex {
	x := &v0EdgeIndex{byName: make(map[string][]int, len(order))}
	add := func(name string, i int) {
		if l := x.byName[name]; len(l) == 0 || l[len(l)-1] != i {
			x.byName[name] = append(l, i)
		}
	}
	for i, e := range order {
		add(e.Replaces, i)
		for _, s := range e.Skips {
			add(s, i)
		}
		if e.Range != nil {
			x.ranged = append(x.ranged, i)
		}
	}
	return x
}

// from returns the positions, ascending and each once, of the entries
// of the order that may have an edge from inst (a superset of those
// v0Edges finds one for).
func (x *v0EdgeIndex) from(inst v0Installed) []int {
	x.buf = x.appendFrom(x.buf[:0], inst)
	return x.buf
}

// appendFrom appends from's positions to out (safe for concurrent use:
// the index is not modified).
func (x *v0EdgeIndex) appendFrom(out []int, inst v0Installed) []int {
	named, ranged := x.byName[inst.name], x.ranged
	if inst.version == nil {
		ranged = nil
	}
	if len(ranged) == 0 {
		return append(out, named...)
	}
	for len(named) > 0 || len(ranged) > 0 {
		switch {
		case len(ranged) == 0 || len(named) > 0 && named[0] < ranged[0]:
			out, named = append(out, named[0]), named[1:]
		case len(named) > 0 && named[0] == ranged[0]:
			out, named, ranged = append(out, named[0]), named[1:], ranged[1:]
		default:
			out, ranged = append(out, ranged[0]), ranged[1:]
		}
	}
	return out
}

// v0EdgeIndex returns the channel's v0EdgeIndex over its v0Chain.
func (c *Channel) v0EdgeIndex() *v0EdgeIndex {
	c.v0Index.once.Do(func() { c.v0Index.index = newV0EdgeIndex(c.v0Chain) })
	return c.v0Index.index
}

// v0Order returns the sorted entries a Subscription considers: per
// channel (default first, then by name, or only q.Channel), the
// sortChannel order of its entries (only q.StartingCSV for a new install
// that names one).
func (p *Package) v0Order(q V0Query) ([]*Entry, error) {
	var chans []*Channel
	if q.Channel != "" {
		if ch := p.channelByName[q.Channel]; ch != nil {
			chans = []*Channel{ch}
		}
	} else {
		if p.DefaultChannel != nil {
			chans = append(chans, p.DefaultChannel)
		}
		for _, ch := range p.Channels {
			if ch != p.DefaultChannel {
				chans = append(chans, ch)
			}
		}
	}
	npkg := 0
	for _, ch := range p.Channels {
		npkg += len(ch.Entries)
	}
	nch := 0
	for _, ch := range chans {
		nch += len(ch.Entries)
	}
	switch {
	case npkg == 0:
		return nil, fmt.Errorf("no operators found in package %s", p.Name)
	case nch == 0:
		return nil, fmt.Errorf("no operators found in channel %s of package %s", q.Channel, p.Name)
	}
	filter := q.Installed == nil && q.StartingCSV != ""
	if len(chans) == 1 && !filter {
		return chans[0].v0Chain, chans[0].v0Err
	}
	var out []*Entry
	for _, ch := range chans {
		if !filter {
			if ch.v0Err != nil {
				return nil, ch.v0Err
			}
			out = append(out, ch.v0Chain...)
			continue
		}
		if e := ch.entryByName[q.StartingCSV]; e != nil {
			sorted, err := SortChannelV0(p.Name, ch.Name, []*Entry{e})
			if err != nil {
				return nil, err
			}
			out = append(out, sorted...)
		}
	}
	if filter && len(out) == 0 {
		return nil, fmt.Errorf("no operators found with name %s in channel %s of package %s", q.StartingCSV, q.Channel, p.Name)
	}
	return out, nil
}

// V0Candidates returns the bundles OLM v0 may move to, in its preference
// order (the first is chosen): entries with an edge from the installed
// CSV, or for a new install every ordered entry; Prohibited bundles
// (legacy olm.deprecated) are never candidates.
func (p *Package) V0Candidates(q V0Query) ([]Hop, error) {
	order, err := p.v0Order(q)
	if err != nil {
		return nil, err
	}
	var out []Hop
	var inst v0Installed
	if q.Installed != nil {
		inst = newV0Installed(*q.Installed)
		if ch := p.channelByName[q.Channel]; q.Channel != "" && ch != nil {
			// The order is ch's v0Chain (v0Order): ask only the entries
			// that may have an edge from inst, not all of them at each
			// resolution.
			for _, i := range ch.v0EdgeIndex().appendFrom(nil, inst) {
				e := order[i]
				if e.prohibited() {
					continue
				}
				if via := v0Edges(e, inst); len(via) > 0 {
					out = append(out, hop(e, via))
				}
			}
			return out, nil
		}
	}
	for _, e := range order {
		if e.prohibited() {
			continue
		}
		var via []Via
		if q.Installed != nil {
			if via = v0Edges(e, inst); len(via) == 0 {
				continue
			}
		}
		out = append(out, hop(e, via))
	}
	return out, nil
}

func hop(e *Entry, via []Via) Hop {
	h := Hop{Name: e.Name, Channel: e.Channel.Name, Via: via}
	if e.Bundle != nil {
		h.Version = e.Bundle.PackageProperty.Version
	}
	return h
}

// V0Next is OLM v0's next bundle: the first candidate, nil when there is
// none or it is the installed CSV itself (no update).
func (p *Package) V0Next(q V0Query) (*Hop, error) {
	cands, err := p.V0Candidates(q)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	if q.Installed != nil && cands[0].Name == q.Installed.Name {
		return nil, nil
	}
	return &cands[0], nil
}

// ResolveV0 follows OLM v0 from the installed bundle one resolution at a
// time until there is no further update (or a bundle repeats): Next is
// the first hop, PathToHead all of them, ReachesHead whether they end at
// the head (the first entry of the Subscription's order: the channel's
// head, or the default channel's for an empty channel). For a new
// install the first hop is the install (the head, or StartingCSV).
func (p *Package) ResolveV0(q V0Query) V0Result {
	r := V0Result{Semantics: SemanticsV0, Channel: q.Channel, PathToHead: []Hop{}}
	order, err := p.v0Order(V0Query{Channel: q.Channel})
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if len(order) == 0 {
		r.Error = fmt.Sprintf("no channel entries to order in package %s", p.Name)
		return r
	}
	r.Head = order[0].Name
	seen := map[string]bool{}
	var inst v0Installed
	if q.Installed == nil {
		first, err := p.V0Next(q)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		if first == nil {
			r.Error = fmt.Sprintf("no installable bundle in package %s: every candidate has the legacy %s property (Prohibited)", p.Name, propLegacyDeprecate)
			return r
		}
		r.PathToHead = append(r.PathToHead, *first)
		inst = newV0Installed(Installed{Name: first.Name, Version: first.Version})
	} else {
		inst = newV0Installed(*q.Installed)
	}
	seen[inst.name] = true
	edges := newV0EdgeIndex(order)
	for range len(order) {
		var next, passed *Entry
		var via []Via
		for _, i := range edges.from(inst) {
			e := order[i]
			if via = v0Edges(e, inst); len(via) > 0 {
				if e.prohibited() {
					if passed == nil {
						passed = e
					}
					continue
				}
				next = e
				break
			}
		}
		if next == nil || next.Name == inst.name {
			if passed != nil {
				r.Stranded = newV0Stranded(inst.name, passed.Name)
			}
			break
		}
		if seen[next.Name] {
			r.Error = fmt.Sprintf("OLM v0 updates loop: %s is reached again", next.Name)
			break
		}
		seen[next.Name] = true
		h := hop(next, via)
		r.PathToHead = append(r.PathToHead, h)
		inst = newV0Installed(Installed{Name: h.Name, Version: h.Version})
	}
	if len(r.PathToHead) > 0 {
		r.Next = &r.PathToHead[0]
		r.ReachesHead = r.PathToHead[len(r.PathToHead)-1].Name == r.Head
	} else {
		r.ReachesHead = q.Installed != nil && q.Installed.Name == r.Head
	}
	return r
}
