// Package plan plans a cluster update together with its OLM operators
// (spec/olm-behaviour.md §6 O7, user need §3 D): for the cluster's update
// path (as `upgraph path` plans it) and every minor it crosses, what each
// installed operator needs, read from the catalogs the cluster uses at
// each minor (redhat-operator-index:v4.21, …). What `upgraph plan`
// prints.
//
// # Hops
//
// A hop is a minor crossed by the path: a release update from 4.y.z to
// 4.y+1.z', or from 4.22.z to 5.0.z' (the minor after 4.22 is 5.0, not
// 4.23: the minors are those of the releases on the path, never
// computed). Updates within a minor are not hops: OLM blocks only minor
// and major updates.
//
// # Per hop and operator
//
// With the cluster at minor F, about to go to T, and the catalog of F
// (the cluster's catalogs follow its minor):
//
//   - Blocked by olm.maxOpenShiftVersion: OLM sets Upgradeable=False
//     while an installed CSV's maxOpenShiftVersion is below the next
//     minor (Blocks: normalize(max) < nextY(normalize(F)), with 4.23 ≡
//     5.0); an invalid value blocks as well (OLM reports it). When the
//     installed bundle blocks, the operator must be updated before the
//     hop: to the first bundle on its path in F's catalog (the hops the
//     OLM runtime takes in its channel, catalog/upgrade) whose
//     maxOpenShiftVersion allows T ("update-required"); when there is
//     none, the hop is blocked ("blocked"), and other channels of the
//     package whose path from the installed bundle has one are named.
//     Otherwise the operator is "compatible" and stays where it is: an
//     update is planned only where one is required.
//   - Into T's catalog: once the cluster is at T its catalogs are T's.
//     Whether the operator, as installed after the hop, still has a way
//     forward there: its channel's path to the head there
//     ("reaches-head": the bundle is an entry of the channel, or entries
//     have edges from it), or it is stranded there (the runtime stops
//     short, with catalog/upgrade's reason), or the channel or the
//     package is gone.
//   - Deprecations ahead: olm.deprecations of T's catalog for the package,
//     the channel, the installed bundle and the bundles on its path there.
//
// # EUS
//
// With ViaEUS, an odd 4.y between two EUS minors on the path (4.20 →
// 4.21 → 4.22) is the intermediate minor of an EUS-to-EUS update: the
// control plane passes through it with the worker pools paused. The
// spec asks for the operator check at each hop and says no more; OLM
// compares with the next minor of the running cluster at every minor, so
// the intermediate minor is a hop like any other: operators must allow
// 4.21 before leaving 4.20 and 4.22 before leaving 4.21 (an update
// needed then comes from the 4.21 catalog, with the workers paused). The
// hops say so (EUS), and a note.
//
// # Catalog sets
//
// A minor may have several catalogs (a catalog set: Catalog.Name and
// Priority, as OpenShift's four default CatalogSources). An operator is
// installed from one of them (Install.Catalog, its Subscription's
// spec.source; optional when only one catalog of the first minor has the
// package) and OLM v0 follows that catalog at every minor; OLM v1
// resolves across the minor's catalogs (upgrade.FindInSet), each hop
// naming the catalog it comes from.
//
// Routes follow the channel graph as catalog/upgrade does (a Prohibited
// bundle is never an OLM v0 hop); OLM v1 refuses a bundle that declares a
// dependency, as operator-controller does, and a refused hop cuts the
// route. For OLM v0, each hop resolves the bundle the operator runs
// after it, with its dependencies, over the next minor's catalog set
// (and an update required before it over the current one's): a
// resolution that fails blocks the hop (deps.go).
package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree/version"
)

// Operator states at a hop.
const (
	// StateCompatible: the installed bundle allows the next minor.
	StateCompatible = "compatible"
	// StateUpdateRequired: it does not, and a bundle on its path in the
	// current catalog does: update to it before the hop.
	StateUpdateRequired = "update-required"
	// StateBlocked: no bundle on its path in the current catalog allows
	// the next minor: the cluster cannot take the hop.
	StateBlocked = "blocked"
)

// States of an operator in the next minor's catalog.
const (
	// NextReachesHead: the runtime takes the bundle to the head of its
	// channel there (or it is the head).
	NextReachesHead = "reaches-head"
	// NextStranded: the runtime stops short of the head there (Reason
	// says why), or the channel has no head.
	NextStranded = "stranded"
	// NextChannelGone: the package has no such channel there.
	NextChannelGone = "channel-gone"
	// NextPackageGone: the catalog has no such package.
	NextPackageGone = "package-gone"
)

// Catalog is a catalog the cluster uses at a minor.
type Catalog struct {
	Minor Minor
	// Key is the --catalogs key as given ("v4.21").
	Key string
	// Name is the catalog's name in a catalog set ("" for the one catalog
	// of a minor given by --catalogs); Priority its spec.priority.
	Name     string
	Priority int32
	// Source is what was read, for people.
	Source string
	Model  *model.Catalog
}

// Request is what `upgraph plan` asks.
type Request struct {
	// Release is the cluster's update path (path.Find's report).
	Release *path.Report
	// Catalogs are by minor; every minor of Minors(Release) needs one, or
	// a set of named ones.
	Catalogs []Catalog
	// Operators are the installed operators (mirrorset.ParseInstalls'
	// list; catalog names the catalog of the set an operator is installed
	// from, target is not used: the plan chooses the updates).
	Operators []mirrorset.Install
	OLM       upgrade.Runtime
	// ViaEUS marks EUS-to-EUS updates (see the package documentation).
	ViaEUS bool
}

// Error is Compute's error for a request that cannot be answered: a
// catalog missing, an operator the catalogs lack. Anything else is a
// Plan.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// Ref names a bundle with its version and release.
type Ref = upgrade.Ref

// Bundle is a bundle with its olm.maxOpenShiftVersion (as OLM reads it,
// major.minor) or why OLM rejects the property.
type Bundle struct {
	Ref
	MaxOpenShiftVersion      string `json:"maxOpenShiftVersion,omitempty"`
	MaxOpenShiftVersionError string `json:"maxOpenShiftVersionError,omitempty"`
}

// Plan is the answer.
type Plan struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Channel string `json:"channel"`
	Arch    string `json:"arch"`
	ViaEUS  bool   `json:"viaEUS"`
	// OLM and Semantics are the runtime the operators update with.
	OLM       upgrade.Runtime `json:"olm"`
	Semantics string          `json:"semantics"`
	// Release is the cluster's path, as `upgraph path --format json`
	// prints it.
	Release *path.Report `json:"release"`
	// Minors are the minors the path goes through, in order.
	Minors   []string     `json:"minors"`
	Catalogs []CatalogRef `json:"catalogs"`
	// Operators are the installs as resolved in the first minor's
	// catalog.
	Operators []Operator `json:"operators"`
	Hops      []Hop      `json:"hops"`
	// Blocked: the cluster cannot take the path (no path, or a hop is
	// blocked); Blockers say why.
	Blocked  bool      `json:"blocked"`
	Blockers []Blocker `json:"blockers"`
	Notes    []string  `json:"notes"`
}

// CatalogRef is a catalog used by the plan.
type CatalogRef struct {
	Minor  string `json:"minor"`
	Key    string `json:"key"`
	Source string `json:"source"`
	// Name and Priority are a catalog set's (absent for --catalogs).
	Name     string `json:"name,omitempty"`
	Priority int32  `json:"priority,omitempty"`
}

// Operator is an install resolved in the first minor's catalog.
type Operator struct {
	// Catalog is the catalog of the set it is installed from (absent
	// with one catalog per minor).
	Catalog string `json:"catalog,omitempty"`
	Package string `json:"package"`
	// Channel is the channel resolved: the install's, else the default
	// channel when it lists the bundle, else the only one listing it.
	Channel string `json:"channel"`
	// Version is the install's version (or bundle name) as listed.
	Version   string `json:"version"`
	Installed Bundle `json:"installed"`
}

// Hop is a minor crossed by the path.
type Hop struct {
	From string `json:"from"`
	To   string `json:"to"`
	// ReleaseFrom → ReleaseTo is the release update that crosses it.
	ReleaseFrom string `json:"releaseFrom"`
	ReleaseTo   string `json:"releaseTo"`
	// OLMChecks is the minor OLM compares maxOpenShiftVersion with at
	// From: nextY(normalize(From)), 4.23 at 4.22.
	OLMChecks   string `json:"olmChecks"`
	FromCatalog string `json:"fromCatalog"`
	ToCatalog   string `json:"toCatalog"`
	// EUS is set for the two hops of an EUS-to-EUS update (ViaEUS).
	EUS       *EUS          `json:"eus,omitempty"`
	Blocked   bool          `json:"blocked"`
	Operators []OperatorHop `json:"operators"`
}

// EUS places a hop in an EUS-to-EUS update From → To through
// Intermediate: Step 1 goes to the intermediate minor, step 2 leaves it
// (its operator updates happen with the worker pools paused).
type EUS struct {
	From         string `json:"from"`
	Intermediate string `json:"intermediate"`
	To           string `json:"to"`
	Step         int    `json:"step"`
}

// OperatorHop is an operator at a hop.
type OperatorHop struct {
	Package string `json:"package"`
	Channel string `json:"channel"`
	// Installed is the bundle installed when the hop is due.
	Installed Bundle `json:"installed"`
	// State is StateCompatible, StateUpdateRequired or StateBlocked.
	State   string `json:"state"`
	Message string `json:"message"`
	// Update is the update required before the hop.
	Update *Update `json:"update,omitempty"`
	// Path is, when blocked, the runtime's path in the current catalog
	// (none of whose bundles allows the next minor).
	Path *Route `json:"path,omitempty"`
	// OtherChannels are, when blocked, channels of the package in the
	// current catalog where the runtime reaches a bundle that allows the
	// next minor.
	OtherChannels []ChannelUpdate `json:"otherChannels,omitempty"`
	// Next is the operator in the next minor's catalog, as installed
	// after the hop.
	Next Next `json:"next"`
	// Deprecations are the next catalog's, for the package, the channel,
	// the installed bundle and the bundles on its path there.
	Deprecations []upgrade.Deprecation `json:"deprecations"`
	// Dependencies (OLM v0) are those of the bundle installed after the
	// hop, checked against the next minor's catalog set; a dependency no
	// bundle there provides blocks the hop (deps.go).
	Dependencies []DependencyCheck `json:"dependencies,omitempty"`
	// UpdateDependencies (OLM v0) are those of Update.To, checked
	// against the current minor's catalog set.
	UpdateDependencies []DependencyCheck `json:"updateDependencies,omitempty"`
}

// Update is an update required before a hop: the bundle, and the
// runtime's hops to it in the current catalog.
type Update struct {
	To   Bundle        `json:"to"`
	Hops []upgrade.Hop `json:"hops"`
}

// ChannelUpdate is another channel in which the runtime reaches a bundle
// that allows the next minor.
type ChannelUpdate struct {
	Channel string        `json:"channel"`
	To      Bundle        `json:"to"`
	Hops    []upgrade.Hop `json:"hops"`
}

// Route is the runtime's way from a bundle to the head of a channel.
type Route struct {
	// Head is the channel's head (null when it has no single head).
	Head  *Ref          `json:"head"`
	Found bool          `json:"found"`
	Hops  []upgrade.Hop `json:"hops"`
	// Reason says why the runtime does not reach the head.
	Reason *upgrade.Reason `json:"reason,omitempty"`
}

// Next is an operator in the next minor's catalog.
type Next struct {
	Catalog string `json:"catalog"`
	// State is NextReachesHead, NextStranded, NextChannelGone or
	// NextPackageGone.
	State string `json:"state"`
	// InChannel: the installed bundle is an entry of the channel there.
	InChannel bool `json:"inChannel"`
	// Route is the runtime's way to the head there (null when the
	// channel or the package is gone).
	Route *Route `json:"route"`
	// Channels and DefaultChannel are the package's there, when the
	// channel is gone.
	Channels       []string `json:"channels,omitempty"`
	DefaultChannel string   `json:"defaultChannel,omitempty"`
}

// Blocker is why the cluster cannot take its path: no path at all, or
// an operator that blocks a hop.
type Blocker struct {
	// Hop is "4.22 → 5.0" ("" when there is no path).
	Hop       string  `json:"hop,omitempty"`
	Package   string  `json:"package,omitempty"`
	Channel   string  `json:"channel,omitempty"`
	Installed *Bundle `json:"installed,omitempty"`
	Message   string  `json:"message"`
}

// crossing is a minor crossed by the path.
type crossing struct {
	from, to       Minor
	relFrom, relTo string
}

// Minors returns the minors the release path goes through, in order:
// the minor of its source, then each new minor a hop lands on (only the
// source's when there is no path). Each needs a catalog.
func Minors(r *path.Report) ([]Minor, error) {
	_, minors, err := crossings(r)
	return minors, err
}

func crossings(r *path.Report) ([]crossing, []Minor, error) {
	m, err := MinorOf(r.From)
	if err != nil {
		return nil, nil, errorf("release %s: %v", r.From, err)
	}
	minors := []Minor{m}
	var out []crossing
	if !r.Found {
		return nil, minors, nil
	}
	for _, h := range r.Hops {
		next, err := MinorOf(h.To)
		if err != nil {
			return nil, nil, errorf("release %s: %v", h.To, err)
		}
		if next != m {
			out = append(out, crossing{from: m, to: next, relFrom: h.From, relTo: h.To})
			minors = append(minors, next)
			m = next
		}
	}
	return out, minors, nil
}

// opState is an operator as the plan moves it along.
type opState struct {
	// catalog is the name of the catalog it is installed from ("" with
	// one catalog per minor).
	catalog      string
	pkg, channel string
	// bundle is the installed bundle, of the catalog it was last found
	// in.
	bundle *model.Bundle
}

// Compute plans req. A request the catalogs cannot answer (a catalog
// missing, an operator the first catalog lacks) is an *Error.
func Compute(req Request) (*Plan, error) {
	if _, err := upgrade.ParseRuntime(string(req.OLM)); err != nil {
		return nil, &Error{err.Error()}
	}
	if req.Release == nil {
		return nil, errorf("no release path")
	}
	rel := req.Release
	cross, minors, err := crossings(rel)
	if err != nil {
		return nil, err
	}
	cats := map[Minor][]*Catalog{}
	for i := range req.Catalogs {
		c := &req.Catalogs[i]
		for _, o := range cats[c.Minor] {
			if o.Name == c.Name || o.Name == "" || c.Name == "" {
				return nil, errorf("two catalogs for %s", c.Minor)
			}
		}
		cats[c.Minor] = append(cats[c.Minor], c)
	}
	var missing []string
	for _, m := range minors {
		if len(cats[m]) == 0 {
			missing = append(missing, m.Key())
		}
	}
	if len(missing) > 0 {
		return nil, errorf("no catalog for %s: the path goes through %s, and each minor needs the catalog the cluster uses then",
			strings.Join(missing, ", "), minorList(minors))
	}
	p := &Plan{From: rel.From, To: rel.To, Channel: rel.Channel, Arch: rel.Arch, ViaEUS: req.ViaEUS,
		OLM: req.OLM, Semantics: req.OLM.Semantics(), Release: rel, Minors: []string{}, Catalogs: []CatalogRef{},
		Operators: []Operator{}, Hops: []Hop{}, Blockers: []Blocker{}, Notes: []string{}}
	for _, m := range minors {
		p.Minors = append(p.Minors, m.String())
		for _, c := range cats[m] {
			p.Catalogs = append(p.Catalogs, CatalogRef{Minor: m.String(), Key: c.Key, Source: c.Source, Name: c.Name, Priority: c.Priority})
			if c.Name != "" && req.OLM == upgrade.V1 {
				p.Semantics = model.SemanticsV1Set
			}
		}
	}

	firsts := cats[minors[0]]
	states := make([]*opState, 0, len(req.Operators))
	var unresolved []string
	for i, in := range req.Operators {
		if in.Target != "" {
			return nil, errorf("operator %d (%s): target %q: plan chooses the operator updates the cluster needs, leave target out", i+1, in.Package, in.Target)
		}
		first, err := homeCatalog(firsts, in)
		var st *opState
		var op Operator
		if err != nil {
			err = errorf("operator %d (%s): %v", i+1, in.Package, err)
		} else {
			st, op, err = resolveOperator(first, i, in)
		}
		if err != nil {
			// Without a path there is no hop to check the operator at:
			// the missing path is the answer (a reversed --from and --to
			// would otherwise read as an operator missing from the
			// catalog of the newer minor).
			if !rel.Found {
				unresolved = append(unresolved, err.Error()+" (not checked further: there is no update path)")
				continue
			}
			return nil, err
		}
		states = append(states, st)
		p.Operators = append(p.Operators, op)
	}

	if !rel.Found {
		p.Blocked = true
		msg := fmt.Sprintf("no update path from %s to %s in %s (%s)", rel.From, rel.To, strings.Join(rel.Channels, " + "), rel.Arch)
		if downgrade(rel.From, rel.To) {
			msg += fmt.Sprintf(": %s is older than %s, and a cluster is never downgraded", rel.To, rel.From)
		}
		p.Blockers = append(p.Blockers, Blocker{Message: msg})
	}
	eus := eusSteps(cross, req.ViaEUS)
	// One OLM v0 catalog set per minor, built when a dependency is first
	// resolved there.
	v0Sets := map[Minor]**model.V0Set{}
	setOf := func(m Minor) **model.V0Set {
		if v0Sets[m] == nil {
			v0Sets[m] = new(*model.V0Set)
		}
		return v0Sets[m]
	}
	for i, c := range cross {
		h := Hop{From: c.from.String(), To: c.to.String(), ReleaseFrom: c.relFrom, ReleaseTo: c.relTo,
			OLMChecks: c.from.Normalize().NextY().String(), FromCatalog: cats[c.from][0].Key, ToCatalog: cats[c.to][0].Key, EUS: eus[i],
			Operators: []OperatorHop{}}
		for _, s := range states {
			cur, next := minorSet(c.from, cats[c.from], s, setOf(c.from)), minorSet(c.to, cats[c.to], s, setOf(c.to))
			oh, err := s.step(c, cur, next, req.OLM)
			if err != nil {
				return nil, err
			}
			if oh.State == StateBlocked {
				h.Blocked = true
				inst := oh.Installed
				p.Blockers = append(p.Blockers, Blocker{Hop: h.From + " → " + h.To, Package: oh.Package, Channel: oh.Channel,
					Installed: &inst, Message: oh.Message})
			}
			h.Operators = append(h.Operators, oh)
		}
		p.Blocked = p.Blocked || h.Blocked
		p.Hops = append(p.Hops, h)
	}
	p.Notes = append(notes(p, cross, req), unresolved...)
	return p, nil
}

// resolveOperator finds operator i of the request in the catalog of the
// path's first minor: its package, bundle and channel.
func resolveOperator(first *Catalog, i int, in mirrorset.Install) (*opState, Operator, error) {
	pkg := first.Model.Package(in.Package)
	if pkg == nil {
		return nil, Operator{}, errorf("operator %d: the %s catalog (%s) has no package %q", i+1, first.Key, first.Source, in.Package)
	}
	b, err := upgrade.FindBundle(pkg, in.Version)
	if err != nil {
		return nil, Operator{}, errorf("operator %d: in the %s catalog: %v", i+1, first.Key, err)
	}
	ch, err := upgrade.ResolveChannel(pkg, in.Channel, b)
	if err != nil {
		return nil, Operator{}, errorf("operator %d: in the %s catalog: %v", i+1, first.Key, err)
	}
	return &opState{catalog: first.Name, pkg: pkg.Name, channel: ch.Name, bundle: b},
		Operator{Catalog: first.Name, Package: pkg.Name, Channel: ch.Name, Version: in.Version, Installed: bundleOf(b)}, nil
}

// downgrade reports whether release to is older than from (both parsed;
// false when either does not parse).
func downgrade(from, to string) bool {
	a, errA := version.Parse(from)
	b, errB := version.Parse(to)
	return errA == nil && errB == nil && version.Compare(b, a) < 0
}

// eusSteps marks the hops of EUS-to-EUS updates: with viaEUS, an odd 4.y
// entered from 4.y-1 and left to 4.y+1.
func eusSteps(cross []crossing, viaEUS bool) []*EUS {
	out := make([]*EUS, len(cross))
	if !viaEUS {
		return out
	}
	for i := 0; i+1 < len(cross); i++ {
		a, b := cross[i], cross[i+1]
		mid := a.to
		if mid.Major != 4 || mid.Minor%2 == 0 || a.from != (Minor{4, mid.Minor - 1}) || b.to != (Minor{4, mid.Minor + 1}) {
			continue
		}
		e := EUS{From: a.from.String(), Intermediate: mid.String(), To: b.to.String()}
		one, two := e, e
		one.Step, two.Step = 1, 2
		out[i], out[i+1] = &one, &two
	}
	return out
}

// step plans the operator at crossing c: what it needs in cur before
// the hop, and where it stands in next after it. It moves s to the
// bundle installed after the hop.
func (s *opState) step(c crossing, curSet, nextSet catalogsAt, olm upgrade.Runtime) (OperatorHop, error) {
	cur := curSet.home
	var update *model.Bundle
	installed := s.bundle
	oh := OperatorHop{Package: s.pkg, Channel: s.channel, Installed: bundleOf(s.bundle), Deprecations: []upgrade.Deprecation{}}
	target := c.to.String()
	if ok, why := allows(s.bundle, c); ok {
		oh.State, oh.Message = StateCompatible, why
	} else {
		pkg := cur.Model.Package(s.pkg)
		var ch *model.Channel
		if pkg != nil {
			ch = pkg.Channel(s.channel)
		}
		switch {
		case pkg == nil:
			oh.State = StateBlocked
			oh.Message = fmt.Sprintf("%s; the %s catalog has no package %s, so no update can be installed", why, cur.Key, s.pkg)
		case ch == nil:
			oh.State = StateBlocked
			oh.Message = fmt.Sprintf("%s; package %s has no channel %s in the %s catalog, so no update can be installed (it has %s)",
				why, s.pkg, s.channel, cur.Key, strings.Join(channelNames(pkg), ", "))
		default:
			rt, err := route(pkg, ch, s.bundle, olm, curSet)
			if err != nil {
				return oh, err
			}
			if b, hops := firstAllowing(pkg, rt, c, curSet); b != nil {
				oh.State = StateUpdateRequired
				oh.Update = &Update{To: bundleOf(b), Hops: hops}
				update = b
				_, whyTo := allows(b, c)
				oh.Message = fmt.Sprintf("%s; update it before the hop to %s, %s in %s: %s",
					why, upgrade.RefText(oh.Update.To.Ref), english.Count(len(hops), "hop"), cur.Key, whyTo)
				s.bundle = b
			} else {
				oh.State = StateBlocked
				oh.Path = &rt
				oh.Message = fmt.Sprintf("%s; no bundle on its %s path in channel %s of the %s catalog allows %s%s",
					why, olm.Title(), s.channel, cur.Key, target, routeEnd(rt, s.bundle))
				for _, other := range pkg.Channels {
					if other == ch {
						continue
					}
					ort, err := route(pkg, other, s.bundle, olm, curSet)
					if err != nil {
						continue
					}
					if b, hops := firstAllowing(pkg, ort, c, curSet); b != nil {
						oh.OtherChannels = append(oh.OtherChannels, ChannelUpdate{Channel: other.Name, To: bundleOf(b), Hops: hops})
					}
				}
			}
		}
	}
	if oh.State != StateBlocked {
		if dependenciesAtHop(&oh, s, curSet, nextSet, olm, update) {
			// the update cannot be installed: the operator stays
			s.bundle = installed
		}
	}
	n, deps, err := nextState(nextSet, s, olm)
	if err != nil {
		return oh, err
	}
	oh.Next, oh.Deprecations = n, deps
	return oh, nil
}

// firstAllowing is the first bundle the route lands on that allows the
// crossing, and the hops up to it.
func firstAllowing(pkg *model.Package, rt Route, c crossing, set catalogsAt) (*model.Bundle, []upgrade.Hop) {
	for i, h := range rt.Hops {
		b := set.bundle(pkg, h)
		if b == nil {
			continue
		}
		if ok, _ := allows(b, c); ok {
			return b, slices.Clone(rt.Hops[:i+1])
		}
	}
	return nil, nil
}

// routeEnd says where the runtime's path ends, for a blocked operator.
func routeEnd(rt Route, from *model.Bundle) string {
	switch {
	case rt.Found && len(rt.Hops) == 0:
		return fmt.Sprintf(" (%s is the head)", from.Name)
	case rt.Found:
		return fmt.Sprintf(" (%s to the head %s)", english.Count(len(rt.Hops), "hop"), upgrade.RefText(*rt.Head))
	case rt.Reason != nil:
		return fmt.Sprintf(" (%s: %s)", rt.Reason.Code, rt.Reason.Message)
	}
	return ""
}

// nextState is the operator in the next minor's catalog, and the
// deprecations ahead there.
func nextState(nextSet catalogsAt, s *opState, olm upgrade.Runtime) (Next, []upgrade.Deprecation, error) {
	next := nextSet.home
	n := Next{Catalog: next.Key}
	deps := []upgrade.Deprecation{}
	pkg := next.Model.Package(s.pkg)
	if pkg == nil {
		n.State = NextPackageGone
		return n, deps, nil
	}
	ch := pkg.Channel(s.channel)
	if ch == nil {
		n.State = NextChannelGone
		n.Channels, n.DefaultChannel = channelNames(pkg), pkg.DefaultChannelName
		return n, deprecations(pkg, nil, nil), nil
	}
	n.InChannel = ch.Entry(s.bundle.Name) != nil
	rt, err := route(pkg, ch, s.bundle, olm, nextSet)
	if err != nil {
		return n, nil, err
	}
	n.Route = &rt
	n.State = NextStranded
	if rt.Found {
		n.State = NextReachesHead
	}
	names := []string{s.bundle.Name}
	for _, h := range rt.Hops {
		names = append(names, h.To.Name)
	}
	return n, deprecations(pkg, ch, names), nil
}

// route is the runtime's way from b, a bundle of this catalog or of
// another one, to the head of ch: catalog/upgrade's hops when the
// catalog has b, else the runtime's first hop from b as installed (OLM
// matches the installed CSV by name and version, which need not be in
// the catalog), then catalog/upgrade's from there.
func route(pkg *model.Package, ch *model.Channel, b *model.Bundle, olm upgrade.Runtime, set catalogsAt) (Route, error) {
	if pkg.Bundle(b.Name) != nil {
		return find(pkg, ch, b.Name, olm, set)
	}
	hop, reason := firstHop(pkg, ch, b, olm, set)
	if hop == nil {
		rt := Route{Hops: []upgrade.Hop{}, Reason: reason}
		if head, err := ch.Head(); err == nil && head.Bundle != nil {
			r := ref(head.Bundle)
			rt.Head = &r
		}
		return rt, nil
	}
	if hop.Catalog != "" && hop.Catalog != set.home.Name {
		// A hop to another catalog's bundle (OLM v1 over a set): the
		// route is not followed further here.
		return Route{Hops: []upgrade.Hop{*hop}, Reason: &upgrade.Reason{Code: upgrade.ReasonUnreachable, Bundles: []string{hop.To.Name},
			Message: fmt.Sprintf("OLM v1 resolves %s from catalog %s; this plan follows the operator's own catalog %s", hop.To.Name, hop.Catalog, set.home.Name)}}, nil
	}
	rest, err := find(pkg, ch, hop.To.Name, olm, set)
	if err != nil {
		return rest, err
	}
	rest.Hops = append([]upgrade.Hop{*hop}, rest.Hops...)
	return rest, nil
}

// find is upgrade.FindInPackage from the named bundle to the head.
func find(pkg *model.Package, ch *model.Channel, from string, olm upgrade.Runtime, set catalogsAt) (Route, error) {
	q := upgrade.Query{Package: pkg.Name, Channel: ch.Name, From: from, OLM: olm}
	var r *upgrade.Report
	var err error
	if members := set.members(pkg.Name); members != nil && olm == upgrade.V1 {
		r, err = upgrade.FindInSet(members, set.home.Name, q)
	} else {
		r, err = upgrade.FindInPackage(pkg, q)
	}
	if err != nil {
		return Route{}, err
	}
	return Route{Head: r.To, Found: r.Found, Hops: r.Hops, Reason: r.Reason}, nil
}

// firstHop is the runtime's first hop from b, a bundle the catalog lacks,
// in ch: OLM v0's V0Next, OLM v1's pick with the channel as filter; nil
// and why when there is none.
func firstHop(pkg *model.Package, ch *model.Channel, b *model.Bundle, olm upgrade.Runtime, set catalogsAt) (*upgrade.Hop, *upgrade.Reason) {
	stranded := &upgrade.Reason{Code: upgrade.ReasonStranded, Bundles: []string{b.Name},
		Message: fmt.Sprintf("%s is not in this catalog, and no entry of channel %s has an edge from it (replaces or skips naming it, or a skipRange holding %s): %s stays on it",
			b.Name, ch.Name, b.PackageProperty.Version, olm.Title())}
	var name string
	var via []model.Via
	if olm == upgrade.V1 {
		inst, err := b.InstalledV1(false)
		if err != nil {
			return nil, &upgrade.Reason{Code: upgrade.ReasonStranded, Bundles: []string{b.Name},
				Message: fmt.Sprintf("OLM v1 cannot read the installed bundle %s: %v", b.Name, err)}
		}
		q := model.V1Query{Package: pkg.Name, Installed: &inst, Channels: []string{ch.Name}}
		res, catalog := pkg.ResolveV1(q), ""
		if members := set.members(pkg.Name); members != nil {
			r := model.ResolveV1Set(members, q)
			res, catalog = r.V1Result, r.Catalog
		}
		switch {
		case res.Refusal != nil:
			return nil, upgrade.RefusedReason(b.Name, res.Refusal)
		case res.Error != "" && strings.Contains(res.Error, "no bundles found"):
			return nil, stranded
		case res.Error != "":
			return nil, &upgrade.Reason{Code: upgrade.ReasonChannelInvalid, Message: res.Error}
		case res.Pick.Installed:
			return nil, stranded
		}
		name, via = res.Pick.Name, res.Pick.Via
		if catalog != "" && catalog != set.home.Name {
			h := upgrade.Hop{From: ref(b), To: upgrade.Ref{Name: res.Pick.Name, Version: res.Pick.Version, Release: res.Pick.Release}, Via: via, Catalog: catalog}
			return &h, nil
		}
	} else {
		inst := b.InstalledV0()
		res := pkg.ResolveV0(model.V0Query{Channel: ch.Name, Installed: &inst})
		next := res.Next
		switch {
		case next == nil && res.Error != "":
			return nil, &upgrade.Reason{Code: upgrade.ReasonChannelInvalid,
				Message: fmt.Sprintf("OLM v0 cannot resolve in channel %s: %s", ch.Name, res.Error)}
		case next == nil && res.Stranded != nil:
			return nil, upgrade.ProhibitedReason(b.Name, res.Stranded)
		case next == nil:
			return nil, stranded
		}
		name, via = next.Name, next.Via
	}
	to := pkg.Bundle(name)
	if to == nil {
		return nil, &upgrade.Reason{Code: upgrade.ReasonMissingBundle, Bundles: []string{name},
			Message: fmt.Sprintf("entry %s of channel %s has no olm.bundle", name, ch.Name)}
	}
	h := upgrade.Hop{From: ref(b), To: ref(to), Via: via}
	if h.Via == nil {
		h.Via = []model.Via{}
	}
	if to.Deprecation != nil {
		h.Deprecated = to.Deprecation.Message
	}
	return &h, nil
}

// catalogsAt is an operator's catalogs at a minor: the one it is
// installed from (home), and all of the minor's (a set when several).
type catalogsAt struct {
	home *Catalog
	all  []*Catalog
	// set is the minor's OLM v0 catalog set, built on first use and
	// shared by the minor's operators (nil: built per use).
	set **model.V0Set
}

// minorSet is catalogsAt for the operator s at minor m: its catalog
// there (an empty one when the set has no catalog of that name at m:
// the package is gone).
func minorSet(m Minor, cats []*Catalog, s *opState, set **model.V0Set) catalogsAt {
	for _, c := range cats {
		if c.Name == s.catalog {
			return catalogsAt{home: c, all: cats, set: set}
		}
	}
	return catalogsAt{home: &Catalog{Minor: m, Key: m.Key(), Name: s.catalog, Source: "(not in the catalog set at " + m.String() + ")",
		Model: model.Convert(&declcfg.DeclarativeConfig{})}, all: cats, set: set}
}

// members is the set OLM v1 walks for pkg: nil with one catalog.
func (cs catalogsAt) members(pkg string) []upgrade.SetMember {
	if len(cs.all) < 2 {
		return nil
	}
	out := make([]upgrade.SetMember, 0, len(cs.all))
	for _, c := range cs.all {
		out = append(out, upgrade.SetMember{Name: c.Name, Priority: c.Priority, Package: c.Model.Package(pkg)})
	}
	return out
}

// bundle is the bundle a hop lands on: of the catalog it names, else of
// pkg.
func (cs catalogsAt) bundle(pkg *model.Package, h upgrade.Hop) *model.Bundle {
	if h.Catalog != "" && (cs.home == nil || h.Catalog != cs.home.Name) {
		for _, c := range cs.all {
			if c.Name == h.Catalog {
				if p := c.Model.Package(pkg.Name); p != nil {
					return p.Bundle(h.To.Name)
				}
			}
		}
		return nil
	}
	return pkg.Bundle(h.To.Name)
}

// homeCatalog is the catalog of the first minor an install comes from:
// the one it names, else the only one (or the only one with its
// package).
func homeCatalog(cats []*Catalog, in mirrorset.Install) (*Catalog, error) {
	var names, has []string
	var only *Catalog
	for _, c := range cats {
		if in.Catalog != "" && c.Name == in.Catalog {
			return c, nil
		}
		names = append(names, c.Name)
		if c.Model.Package(in.Package) != nil {
			has, only = append(has, c.Name), c
		}
	}
	switch {
	case in.Catalog != "" && len(cats) == 1 && cats[0].Name == "":
		return nil, fmt.Errorf("catalog %q: plan reads one catalog per minor (--catalogs), leave catalog out (or give a --catalog-set)", in.Catalog)
	case in.Catalog != "":
		return nil, fmt.Errorf("catalog %q: not a catalog of the set (it has %s)", in.Catalog, strings.Join(names, ", "))
	case len(cats) == 1:
		return cats[0], nil
	case len(has) == 1:
		return only, nil
	case len(has) == 0:
		return nil, fmt.Errorf("no catalog of the first minor has the package (it has %s)", strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("catalogs %s have the package: name the one its Subscription uses (spec.source) as its catalog", strings.Join(has, ", "))
}

// deprecations lists the package's, the channel's (ch nil: none) and the
// named bundles' olm.deprecations, as catalog/upgrade does.
func deprecations(pkg *model.Package, ch *model.Channel, bundles []string) []upgrade.Deprecation {
	out := []upgrade.Deprecation{}
	if pkg.Deprecation != nil {
		out = append(out, upgrade.Deprecation{Schema: "olm.package", Message: pkg.Deprecation.Message})
	}
	if ch != nil && ch.Deprecation != nil {
		out = append(out, upgrade.Deprecation{Schema: "olm.channel", Name: ch.Name, Message: ch.Deprecation.Message})
	}
	seen := map[string]bool{}
	for _, name := range bundles {
		if b := pkg.Bundle(name); b != nil && b.Deprecation != nil && !seen[name] {
			seen[name] = true
			out = append(out, upgrade.Deprecation{Schema: "olm.bundle", Name: name, Message: b.Deprecation.Message})
		}
	}
	return out
}

// maxOpenShift is b's olm.maxOpenShiftVersion as OLM reads it, or why
// OLM rejects it (the model keeps the value only when it is valid, and
// reports the rest as a problem).
func maxOpenShift(b *model.Bundle) (string, string) {
	if b.MaxOpenShiftVersion != "" {
		return b.MaxOpenShiftVersion, ""
	}
	for _, pr := range b.Package.Problems() {
		if pr.Rule == model.RuleMaxOpenShift && pr.Bundle == b.Name {
			return "", pr.Message
		}
	}
	return "", ""
}

// allows reports whether b, installed, lets the cluster take crossing c,
// and says why (or why not) for people.
func allows(b *model.Bundle, c crossing) (bool, string) {
	max, bad := maxOpenShift(b)
	to := c.to.String()
	switch {
	case bad != "":
		return false, fmt.Sprintf("%s has an invalid olm.maxOpenShiftVersion, which OLM reports as blocking every minor update", b.Name)
	case max == "":
		return true, fmt.Sprintf("%s has no olm.maxOpenShiftVersion", b.Name)
	}
	m, err := ParseMinor(max)
	if err != nil { // the model only keeps major.minor values
		return false, fmt.Sprintf("%s has an unreadable olm.maxOpenShiftVersion %q", b.Name, max)
	}
	if Allows(m, c.from, c.to) {
		return true, fmt.Sprintf("%s has maxOpenShiftVersion %s, which allows %s", b.Name, equiv(m), to)
	}
	if !Blocks(m, c.from) {
		// OLM's rule passes: the hop skips the minor OLM checks.
		return false, fmt.Sprintf("%s has maxOpenShiftVersion %s: OLM lets the cluster leave %s (it checks %s, the next minor), "+
			"but the hop skips to %s, past what the bundle declares; upgraph blocks the update to %s (its policy for a hop that skips a minor, stricter than OLM's)",
			b.Name, equiv(m), c.from, c.from.Normalize().NextY(), to, to)
	}
	return false, fmt.Sprintf("%s has maxOpenShiftVersion %s: OLM blocks the update to %s", b.Name, equiv(m), to)
}

// equiv writes a minor, with its 4.23 ≡ 5.0 equivalent.
func equiv(m Minor) string {
	if m.Normalize() != m {
		return fmt.Sprintf("%s (≡ %s)", m, m.Normalize())
	}
	return m.String()
}

func bundleOf(b *model.Bundle) Bundle {
	max, bad := maxOpenShift(b)
	return Bundle{Ref: ref(b), MaxOpenShiftVersion: max, MaxOpenShiftVersionError: bad}
}

func ref(b *model.Bundle) Ref {
	return Ref{Name: b.Name, Version: b.PackageProperty.Version, Release: b.PackageProperty.Release}
}

func channelNames(p *model.Package) []string {
	out := make([]string, len(p.Channels))
	for i, ch := range p.Channels {
		out[i] = ch.Name
	}
	return out
}

func minorList(ms []Minor) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return strings.Join(out, " → ")
}

// notes say what the plan assumes.
func notes(p *Plan, cross []crossing, req Request) []string {
	var out []string
	if p.Release.Found && len(cross) == 0 {
		out = append(out, "The path crosses no minor: OLM's olm.maxOpenShiftVersion check only blocks minor and major updates.")
	}
	for _, c := range cross {
		if c.to.Normalize() == (Minor{5, 0}) && c.from == (Minor{4, 22}) {
			out = append(out, fmt.Sprintf("%s → %s: the minor after 4.22 is 5.0; OLM compares olm.maxOpenShiftVersion with 4.23 there and treats 4.23 as 5.0 (normalizeOCPVersion), so 4.23 and 5.0 both allow the update and 4.22 blocks it.", c.from, c.to))
		}
	}
	for _, h := range p.Hops {
		if h.EUS != nil && h.EUS.Step == 1 {
			out = append(out, fmt.Sprintf("EUS-to-EUS %s → %s: the control plane passes through %s with the worker pools paused. OLM checks olm.maxOpenShiftVersion against the next minor at every minor, the intermediate one included, so %s is planned as a hop: operators must allow %s before the cluster leaves %s and %s before it leaves %s (an update needed then comes from the %s catalog while the workers are paused).",
				h.EUS.From, h.EUS.To, h.EUS.Intermediate, h.EUS.Intermediate, h.EUS.Intermediate, h.EUS.From, h.EUS.To, h.EUS.Intermediate, h.ToCatalog))
		}
	}
	if len(req.Operators) > 0 && len(cross) > 0 {
		// What is modelled depends on the runtime: OLM v1 refuses a
		// resolved bundle that declares a dependency (operator-controller's
		// NoDependencyValidation), which the routes model; OLM v0 solves
		// dependencies, which each hop checks (deps.go).
		const stay = "Operators stay on their installed bundles unless an update is required (with automatic approval, OLM moves them along their channels anyway)"
		if req.OLM == upgrade.V1 {
			out = append(out, stay+"; OLM v1's refusal of a resolved bundle that declares a dependency (olm.package.required, olm.gvk.required, olm.constraint) is modelled as operator-controller decides, with no fallback to an older bundle; no dependency is solved, as OLM v1 solves none.")
		} else {
			out = append(out, stay+"; OLM v0's Prohibited bundles are never hops; at each hop the bundle an operator runs after it is resolved with its dependencies (olm.gvk.required, olm.package.required, olm.label.required, olm.constraint) over the next minor's catalog set as OLM v0's resolver does (and an update required before it over the current one's), and the hop is blocked when the resolution fails (a dependency no bundle provides, or providers that conflict); each operator is resolved alone in its namespace (the other installed operators are not installed CSVs of the resolution), a bundle that is not an entry of its channel there is only checked for a provider of each dependency, and the dependencies of bundles further along the routes are not checked.")
		}
	}
	return append([]string{}, out...)
}
