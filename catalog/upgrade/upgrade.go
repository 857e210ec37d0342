// Package upgrade answers an operator admin's question "how does OLM move
// my operator from the bundle it runs to this one, and if it does not,
// why": the hops an OLM runtime takes in a catalog, one resolution at a
// time, what `upgraph path --catalog` prints.
//
//   - OLM v0 (a Subscription to a channel): each hop is what
//     model.Package.V0Next chooses for the bundle installed at that point
//     (ResolveV0's path): the first entry of the channel's order (head
//     first along replaces, entries skipped by another entry dropped) with
//     an edge from the installed CSV.
//   - OLM v1 (a ClusterExtension with the channel as its channel filter):
//     each hop is ResolveV1's pick for the bundle installed at that point,
//     until it picks the installed bundle itself (it stays).
//
// A path exists when the runtime lands on the target; otherwise Reason
// says why, precisely (see the Reason codes). Deprecations met on the way
// (olm.deprecations: the package, the channel, every bundle from the
// installed one to the last hop) are listed, as the runtimes report them
// in their conditions. The runtimes' own refusals stop the walk: OLM v0
// never hops to a Prohibited bundle (legacy olm.deprecated), OLM v1
// refuses a resolved bundle that declares a dependency (no fallback).
// Over a catalog set (FindInSet) OLM v1 resolves across the catalogs.
// FindV0InSet follows OLM v0 with its dependencies resolved over a
// catalog set (model.V0Set, deps.go): each hop with its dependencies'
// picks, the providers installed and the candidates passed over;
// FindInPackage and FindInSet stay graph only for OLM v0.
package upgrade

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
)

// Runtime is an OLM runtime.
type Runtime string

const (
	// V0 is OLM v0: a Subscription (operator-lifecycle-manager).
	V0 Runtime = "v0"
	// V1 is OLM v1: a ClusterExtension (operator-controller).
	V1 Runtime = "v1"
)

// ParseRuntime reads "v0" or "v1".
func ParseRuntime(s string) (Runtime, error) {
	switch Runtime(s) {
	case V0, V1:
		return Runtime(s), nil
	}
	return "", fmt.Errorf("want v0 (a Subscription) or v1 (a ClusterExtension), got %q", s)
}

// Semantics is the model's label of the runtime's rules.
func (r Runtime) Semantics() string {
	if r == V1 {
		return model.SemanticsV1
	}
	return model.SemanticsV0
}

// Title names the runtime for people.
func (r Runtime) Title() string {
	if r == V1 {
		return "OLM v1"
	}
	return "OLM v0"
}

// Head is the target that names the channel head.
const Head = "head"

// Query asks for the path of one install.
type Query struct {
	Package string
	// Channel is the Subscription's channel (OLM v0) or the
	// ClusterExtension's channel filter (OLM v1). "" chooses the
	// package's default channel when it lists From, else the only channel
	// listing From (ResolveChannel).
	Channel string
	// From is the installed bundle: its name, or its version (with its
	// release, as VersionString writes it).
	From string
	// To is the target: "" or Head for the channel head, else a bundle
	// name or version.
	To  string
	OLM Runtime
}

// Ref names a bundle with its version and release.
type Ref = model.GraphRef

// Hop is one resolution: the runtime moves the cluster From → To, allowed
// by the edges Via (declared by To's entries).
type Hop struct {
	From Ref         `json:"from"`
	To   Ref         `json:"to"`
	Via  []model.Via `json:"via"`
	// Catalog is, over a catalog set (FindInSet, OLM v1), the catalog
	// the hop's bundle is resolved from.
	Catalog string `json:"catalog,omitempty"`
	// Deprecated is To's bundle-level deprecation message.
	Deprecated string `json:"deprecated,omitempty"`
	// Dependencies, Providers and PassedOver are OLM v0's with
	// dependencies (FindV0InSet): To's dependencies with the bundle
	// picked for each, the providers installed with the hop, and the
	// candidates before To whose dependencies could not be satisfied.
	Dependencies []model.V0DependencyResult `json:"dependencies,omitempty"`
	Providers    []model.V0Provider         `json:"providers,omitempty"`
	PassedOver   []model.V0PassedOver       `json:"passedOver,omitempty"`
}

// Deprecation is an olm.deprecations entry met on the way: Schema and
// Name are its reference (Name "" for the package).
type Deprecation struct {
	Schema  string `json:"schema"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
}

// String is the deprecation as OLM's conditions word it
// ("olm.bundle/NAME: message").
func (d Deprecation) String() string {
	ref := d.Schema
	if d.Name != "" {
		ref += "/" + d.Name
	}
	return ref + ": " + d.Message
}

// Reason codes: why there is no path.
const (
	// ReasonStranded: the runtime stops at a bundle short of the target:
	// no entry of the channel it will take has an edge from it (OLM v0:
	// its successors, if any, are entries the resolver drops as skipped;
	// OLM v1: no successor, or only lower ones).
	ReasonStranded = "stranded"
	// ReasonSkippedByV0: the target is an entry OLM v0 never lands on: an
	// entry of the channel skips it, or it is off the replaces chain from
	// the head.
	ReasonSkippedByV0 = "skipped-by-v0"
	// ReasonMissingBundle: the runtime stops (or OLM v0 cannot order the
	// channel) because the chain goes through a bundle the catalog lacks:
	// an entry replaces a name no bundle of the package has, above where
	// the runtime stops (a partially mirrored catalog).
	ReasonMissingBundle = "missing-bundle"
	// ReasonUnreachable: the target is not in the channel, or the runtime
	// moves past it without landing on it.
	ReasonUnreachable = "unreachable"
	// ReasonTargetOlder: the target is a lower version than the installed
	// bundle, and no edge leads down to it.
	ReasonTargetOlder = "target-older"
	// ReasonChannelInvalid: the runtime cannot resolve in the channel:
	// OLM v0 needs a single replaces chain (and the channel head a single
	// head), e.g. a skipRange-only entry made a second head.
	ReasonChannelInvalid = "channel-invalid"
	// ReasonLoop: the runtime's updates come back to a bundle.
	ReasonLoop = "loop"
	// ReasonRefusedByV1: OLM v1 resolves a bundle that declares a
	// dependency (olm.package.required, olm.gvk.required,
	// olm.constraint) and operator-controller refuses it
	// (NoDependencyValidation), without falling back to an older bundle:
	// the installed bundle stays.
	ReasonRefusedByV1 = "refused-by-v1"
	// ReasonCatalogTie: over a catalog set, OLM v1 finds its best bundle
	// in several catalogs of the same (highest) priority and refuses to
	// choose.
	ReasonCatalogTie = "catalog-tie"
	// ReasonProhibited: OLM v0's next hop would be a bundle with the
	// legacy olm.deprecated property, which its resolver never installs
	// (Prohibited): the installed bundle stays.
	ReasonProhibited = "prohibited"
)

// Reason says why there is no path: a code above, a message for people,
// and the bundles it is about.
type Reason struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Bundles []string `json:"bundles,omitempty"`
}

// Report is the answer to a Query.
type Report struct {
	// Catalog names where the catalog was read from (set by the caller).
	Catalog   string  `json:"catalog,omitempty"`
	Package   string  `json:"package"`
	Channel   string  `json:"channel"`
	OLM       Runtime `json:"olm"`
	Semantics string  `json:"semantics"`
	From      Ref     `json:"from"`
	// To is the target bundle (the channel head for To ""/Head); null
	// when the channel has no single head.
	To *Ref `json:"to"`
	// ToHead says To is the channel's head, asked for (To ""/Head) or
	// named.
	ToHead bool `json:"toHead"`
	Found  bool `json:"found"`
	// Hops are the runtime's resolutions from From: up to the target when
	// Found, else every one it takes before it stops (or loops).
	Hops []Hop `json:"hops"`
	// StopsAt is where the runtime stops without a path (nil when Found).
	StopsAt *Ref `json:"stopsAt,omitempty"`
	// Deprecations met on the way: the package's, the channel's, and
	// those of the bundles from From to the last hop, in that order.
	Deprecations []Deprecation `json:"deprecations"`
	Reason       *Reason       `json:"reason,omitempty"`
	// PackageErrors are the package's errors (opm validate rejects it):
	// the path is still computed, as a cluster on an older catalog sees
	// it.
	PackageErrors []string `json:"packageErrors,omitempty"`

	// setSize is the number of catalogs OLM v0 resolved dependencies
	// over (FindV0InSet), for the text's wording.
	setSize int
}

// Error is Find's error for a question that has no answer: an unknown
// package, channel or bundle.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// FindBundle returns the bundle of p that s names: a bundle name, else a
// version as VersionString writes it (release included), else an
// olm.package version.
func FindBundle(p *model.Package, s string) (*model.Bundle, error) {
	if b := p.Bundle(s); b != nil {
		return b, nil
	}
	var byVersion []*model.Bundle
	for _, b := range p.Bundles {
		if b.VersionOK && b.VersionString() == s {
			return b, nil
		}
		if b.PackageProperty.Version == s {
			byVersion = append(byVersion, b)
		}
	}
	if len(byVersion) == 1 {
		return byVersion[0], nil
	}
	if len(byVersion) > 1 {
		names := make([]string, len(byVersion))
		for i, b := range byVersion {
			names[i] = b.Name
		}
		return nil, errorf("package %s has %d bundles of version %s (%s): name one", p.Name, len(byVersion), s, strings.Join(names, ", "))
	}
	return nil, errorf("package %s has no bundle named or versioned %q", p.Name, s)
}

// ResolveChannel returns the channel name chooses in p; "" chooses the
// default channel when it lists from, else the only channel listing from
// (from nil: the default channel).
func ResolveChannel(p *model.Package, name string, from *model.Bundle) (*model.Channel, error) {
	if name != "" {
		if ch := p.Channel(name); ch != nil {
			return ch, nil
		}
		return nil, errorf("package %s has no channel %q (it has %s)", p.Name, name, strings.Join(channelNames(p.Channels), ", "))
	}
	if from == nil || (p.DefaultChannel != nil && p.DefaultChannel.Entry(from.Name) != nil) {
		if p.DefaultChannel == nil {
			return nil, errorf("package %s has no default channel: name one (it has %s)", p.Name, strings.Join(channelNames(p.Channels), ", "))
		}
		return p.DefaultChannel, nil
	}
	var in []*model.Channel
	for _, e := range from.Entries {
		in = append(in, e.Channel)
	}
	switch len(in) {
	case 1:
		return in[0], nil
	case 0:
		return nil, errorf("bundle %s of package %s is in no channel: name the channel", from.Name, p.Name)
	}
	return nil, errorf("bundle %s of package %s is in channels %s, not in the default channel %s: name the channel",
		from.Name, p.Name, strings.Join(channelNames(in), ", "), p.DefaultChannelName)
}

func channelNames(chs []*model.Channel) []string {
	out := make([]string, len(chs))
	for i, ch := range chs {
		out[i] = ch.Name
	}
	return out
}

func ref(b *model.Bundle) Ref {
	return Ref{Name: b.Name, Version: b.PackageProperty.Version, Release: b.PackageProperty.Release}
}

// Find answers q on catalog c. The error is an *Error for a question
// that names what the catalog lacks (package, channel, bundle) or a bad
// runtime; no path is a Report with Found false and a Reason.
func Find(c *model.Catalog, q Query) (*Report, error) {
	p := c.Package(q.Package)
	if p == nil {
		var names []string
		for _, p := range c.Packages {
			names = append(names, p.Name)
		}
		if len(names) > 20 {
			names = append(names[:20], "…")
		}
		return nil, errorf("the catalog has no package %q (it has %s)", q.Package, strings.Join(names, ", "))
	}
	return FindInPackage(p, q)
}

// FindInPackage is Find on the package q names.
func FindInPackage(p *model.Package, q Query) (*Report, error) {
	return find(p, q, nil, nil)
}

// find answers q in p; OLM v1 resolves over set when it has members,
// OLM v0 with dependencies over v0 when it is not nil.
func find(p *model.Package, q Query, set []SetMember, v0 *v0Deps) (*Report, error) {
	if _, err := ParseRuntime(string(q.OLM)); err != nil {
		return nil, &Error{err.Error()}
	}
	from, err := FindBundle(p, q.From)
	if err != nil {
		return nil, err
	}
	ch, err := ResolveChannel(p, q.Channel, from)
	if err != nil {
		return nil, err
	}
	r := &Report{Package: p.Name, Channel: ch.Name, OLM: q.OLM, Semantics: q.OLM.Semantics(), From: ref(from),
		Hops: []Hop{}, Deprecations: []Deprecation{}}
	for _, pr := range p.Problems() {
		if pr.Severity == model.Error {
			r.PackageErrors = append(r.PackageErrors, pr.Message)
		}
	}
	var target *model.Bundle
	headErr := error(nil)
	if q.To == "" || q.To == Head {
		r.ToHead = true
		head, err := ch.Head()
		if err != nil {
			headErr = err
		} else if head.Bundle == nil {
			headErr = fmt.Errorf("the head %s has no olm.bundle", head.Name)
		} else {
			target = head.Bundle
		}
	} else if target, err = FindBundle(p, q.To); err != nil {
		return nil, err
	} else if head, err := ch.Head(); err == nil && head.Bundle != nil && head.Name == target.Name {
		r.ToHead = true // --to names the head: the report says so, as for --to head
	}
	if target != nil {
		to := ref(target)
		r.To = &to
	}
	var w walk
	switch {
	case q.OLM == V1:
		w = walkV1Set(p, ch, from, set)
	case v0 != nil:
		w = v0.walk(p, ch, from)
	default:
		w = walkV0(p, ch, from)
	}
	r.Hops = w.hops
	if target != nil {
		if target == from {
			r.Found, r.Hops = true, []Hop{}
		} else if i := slices.IndexFunc(w.hops, func(h Hop) bool { return h.To.Name == target.Name && h.To.Version == target.PackageProperty.Version }); i >= 0 {
			r.Found, r.Hops = true, w.hops[:i+1]
		}
	}
	if !r.Found {
		stop := ref(w.stop)
		r.StopsAt = &stop
		e := explainer{p: p, ch: ch, olm: q.OLM, from: from, target: target, headErr: headErr, w: w}
		r.Reason = e.explain()
	}
	r.Deprecations = deprecations(p, ch, from, r.Hops)
	return r, nil
}

// SetMember is a catalog of a set: its name, priority and the package
// the query names in it (nil when it lacks the package).
type SetMember = model.V1CatalogMember

// FindInSet is FindInPackage for an operator installed from catalog home
// of a catalog set: OLM v0 resolves in home (a Subscription names its
// CatalogSource), OLM v1 across every catalog of set (ResolveV1Set:
// non-deprecated first, then the highest priority, a tie an error), each
// hop naming the catalog it comes from. From, To and the channel are
// read in home.
func FindInSet(set []SetMember, home string, q Query) (*Report, error) {
	var p *model.Package
	for _, m := range set {
		if m.Name == home {
			p = m.Package
		}
	}
	if p == nil {
		return nil, errorf("catalog %s has no package %q", home, q.Package)
	}
	if q.OLM != V1 {
		r, err := FindInPackage(p, q)
		if r != nil {
			r.Catalog = home
		}
		return r, err
	}
	r, err := find(p, q, set, nil)
	if r != nil {
		r.Catalog = home
		r.Semantics = model.SemanticsV1Set
	}
	return r, err
}

// walk is what a runtime does from the installed bundle: its hops, the
// bundle it stops at, and an error (it cannot resolve, or loops).
type walk struct {
	hops []Hop
	stop *model.Bundle
	err  error
	loop bool
	// none is OLM v1's error when it finds no bundle at all (not even
	// the installed one): it stays, and says so.
	none string
	// tie is OLM v1's error when catalogs of the same priority tie.
	tie string
	// refusal is OLM v1's refusal of the bundle it resolved from stop.
	refusal *model.V1Refusal
	// prohibited is OLM v0's Prohibited next hop from stop.
	prohibited *model.V0Stranded
	// held is OLM v0's stay at stop for candidates whose dependencies
	// cannot be satisfied; unsat the failing resolution's unsatisfied
	// dependencies (err says the rest); depErr a dependency OLM v0
	// cannot read (err says it).
	held   *model.V0Held
	unsat  []model.V0PassedOver
	depErr bool
}

// walkV0 follows OLM v0 (ResolveV0: V0Next once per resolution).
func walkV0(p *model.Package, ch *model.Channel, from *model.Bundle) walk {
	inst := from.InstalledV0()
	res := p.ResolveV0(model.V0Query{Channel: ch.Name, Installed: &inst})
	w := walk{stop: from, hops: []Hop{}}
	prev := from
	for _, h := range res.PathToHead {
		b := p.Bundle(h.Name)
		if b == nil { // an entry without a bundle: the model could not say more
			w.err = fmt.Errorf("entry %s has no olm.bundle", h.Name)
			break
		}
		w.hops = append(w.hops, hop(prev, b, h.Via))
		prev = b
	}
	w.stop = prev
	w.prohibited = res.Stranded
	if res.Error != "" {
		w.err = errors.New(res.Error)
		w.loop = strings.Contains(res.Error, "loop")
	}
	return w
}

// walkV1 follows OLM v1 in one catalog.
func walkV1(p *model.Package, ch *model.Channel, from *model.Bundle) walk {
	return walkV1Set(p, ch, from, nil)
}

// walkV1Set follows OLM v1: its pick (over set when it has members, else
// in p alone), once per resolution, until it picks the installed bundle
// (or fails, or is refused, or loops).
func walkV1Set(p *model.Package, ch *model.Channel, from *model.Bundle, set []model.V1CatalogMember) walk {
	w := walk{stop: from, hops: []Hop{}}
	seen := map[string]bool{from.Name: true}
	cur := from
	for range bundleCount(p, set) + 1 {
		inst, err := cur.InstalledV1(false)
		if err != nil {
			w.err = fmt.Errorf("OLM v1 cannot read the installed bundle %s: %w", cur.Name, err)
			break
		}
		q := model.V1Query{Package: p.Name, Installed: &inst, Channels: []string{ch.Name}}
		var res model.V1Result
		next, catalog := (*model.Bundle)(nil), ""
		if len(set) > 0 {
			r := model.ResolveV1Set(set, q)
			res, catalog = r.V1Result, r.Catalog
			for _, m := range set {
				if m.Name == r.Catalog && m.Package != nil && res.Pick != nil {
					next = m.Package.Bundle(res.Pick.Name)
				}
			}
		} else {
			res = p.ResolveV1(q)
			if res.Pick != nil {
				next = p.Bundle(res.Pick.Name)
			}
		}
		if res.Refusal != nil {
			w.refusal = res.Refusal
			break
		}
		if res.Error != "" {
			switch {
			case strings.Contains(res.Error, "no bundles found"):
				w.none = res.Error
			case strings.Contains(res.Error, "in multiple catalogs with the same priority"):
				w.tie = res.Error
			default:
				w.err = errors.New(res.Error)
			}
			break
		}
		if res.Pick.Installed || res.Pick.Name == cur.Name || next == nil {
			break
		}
		if seen[next.Name] {
			w.err, w.loop = fmt.Errorf("OLM v1 updates loop: %s is reached again", next.Name), true
			break
		}
		seen[next.Name] = true
		h := hop(cur, next, res.Pick.Via)
		h.Catalog = catalog
		w.hops = append(w.hops, h)
		cur = next
	}
	w.stop = cur
	return w
}

// bundleCount bounds the walk: the bundles of p, or of every package of
// the set.
func bundleCount(p *model.Package, set []model.V1CatalogMember) int {
	if len(set) == 0 {
		return len(p.Bundles)
	}
	n := 0
	for _, m := range set {
		if m.Package != nil {
			n += len(m.Package.Bundles)
		}
	}
	return n
}

func hop(from, to *model.Bundle, via []model.Via) Hop {
	h := Hop{From: ref(from), To: ref(to), Via: via}
	if h.Via == nil {
		h.Via = []model.Via{}
	}
	if to.Deprecation != nil {
		h.Deprecated = to.Deprecation.Message
	}
	return h
}

// deprecations lists the package's, the channel's and the bundles'
// deprecations from the installed bundle along the hops.
func deprecations(p *model.Package, ch *model.Channel, from *model.Bundle, hops []Hop) []Deprecation {
	out := []Deprecation{}
	if p.Deprecation != nil {
		out = append(out, Deprecation{Schema: "olm.package", Message: p.Deprecation.Message})
	}
	if ch.Deprecation != nil {
		out = append(out, Deprecation{Schema: "olm.channel", Name: ch.Name, Message: ch.Deprecation.Message})
	}
	bundles := []string{from.Name}
	for _, h := range hops {
		bundles = append(bundles, h.To.Name)
	}
	for _, name := range bundles {
		if b := p.Bundle(name); b != nil && b.Deprecation != nil {
			out = append(out, Deprecation{Schema: "olm.bundle", Name: name, Message: b.Deprecation.Message})
		}
	}
	return out
}
