package model

// OLM v0's resolution with dependencies over the CatalogSources a
// namespace sees (API: top of olmv0deps.go). Upstream:
// operator-lifecycle-manager 992bb097749e5994eedc5e4882583df952d8a70e,
// pkg/controller/registry/resolver:
//
//   - resolver.go Resolve: the installed CSVs of the namespace (the
//     virtual "existing" source) and each Subscription's candidates
//     (getSubscriptionVariables: the Subscription's catalog, its channel
//     in sortChannel order, bundles replacing, skipping or skipRange-ing
//     the installed CSV, then the installed CSV itself, last);
//   - getBundleVariables: per dependency of a bundle, its providers in
//     FindPreferred order (cache/cache.go sortableSnapshots: the installed
//     CSVs first, then the requiring bundle's own catalog, then catalogs
//     by spec.priority, higher first, then by name) and, per catalog,
//     sortBundles (the default channel first, then by package and channel
//     name; each channel in sortChannel order), filtered by the
//     dependency's predicate;
//   - addInvariants: at most one bundle per package and per provided GVK;
//     variable_types.go: a bundle with olm.deprecated is Prohibited;
//   - solver/search.go: the Subscriptions are anchors; each choice (a
//     Subscription's candidates, a bundle's dependency's providers) is
//     guessed in its order, breadth first, backtracking chronologically
//     on a conflict — so the first candidate whose dependencies can be
//     satisfied is taken, and a candidate whose dependencies cannot be is
//     passed over; solve.go then keeps nothing beyond the guesses.
//
// The search here is that depth-first walk over the same choices in the
// same order, with conflicts checked directly (package, GVK, Prohibited,
// a dependency nobody provides) instead of by a SAT solver's unit
// propagation: a sound check prunes only branches the solver also
// rejects, so the first solution found is the solver's.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// SemanticsV0Set labels answers of V0Set.
const SemanticsV0Set = "olm-v0: Subscription with dependencies (operator-lifecycle-manager resolver: the Subscription's catalog and channel in sortChannel order, bundles replacing, skipping or skipRange-ing the installed CSV; " +
	"every dependency (olm.gvk.required, olm.package.required, olm.label.required, olm.constraint) provided over the catalog set: installed CSVs first, then the requiring bundle's catalog, then by priority and name, each catalog's default channel first; " +
	"at most one bundle per package and per GVK; a candidate whose dependencies cannot be satisfied is passed over; Prohibited (olm.deprecated) bundles never installed); " +
	"modelled: one namespace holding this Subscription and the providers it installs, each with the Subscription OLM creates for it; no other operator installed, no OperatorGroup, install mode, minKubeVersion or olm.maxOpenShiftVersion check"

// Reasons a hop or a candidate is not taken.
const (
	ReasonUnsatisfiedDependency = "unsatisfied-dependency"
	ReasonNoProvider            = "no-provider"
	ReasonConflict              = "conflict"
)

// V0CatalogMember is one CatalogSource a namespace sees: its name,
// spec.priority and catalog.
type V0CatalogMember struct {
	Name     string
	Priority int32
	Catalog  *Catalog
}

// V0Subscription is a Subscription of the namespace with its installed
// CSV.
type V0Subscription struct {
	// Catalog is spec.source, a member's name.
	Catalog string `json:"catalog"`
	Package string `json:"package"`
	// Channel is spec.channel ("" for every channel, default first).
	Channel string `json:"channel,omitempty"`
	// Installed is status.installedCSV, a bundle of Catalog's package
	// ("" for a new install).
	Installed   string `json:"installed,omitempty"`
	StartingCSV string `json:"startingCSV,omitempty"`
	// InstalledProhibited says the installed CSV keeps the legacy
	// olm.deprecated property (OLM v0 itself never installs such a
	// bundle; a CSV installed otherwise can carry it).
	InstalledProhibited bool `json:"installedProhibited,omitempty"`
}

// V0Pick is a bundle OLM v0 installs or keeps.
type V0Pick struct {
	Catalog string `json:"catalog"`
	Package string `json:"package"`
	Channel string `json:"channel"`
	Bundle  string `json:"bundle"`
	Version string `json:"version"`
	// Installed says the pick is the CSV already installed.
	Installed bool `json:"installed,omitempty"`
}

// V0DependencyResult is one dependency of a bundle with the bundle OLM v0
// picks for it, or why none can be.
type V0DependencyResult struct {
	Property       int     `json:"property"`
	Type           string  `json:"type"`
	Text           string  `json:"text"`
	FailureMessage string  `json:"failureMessage,omitempty"`
	Pick           *V0Pick `json:"pick,omitempty"`
	// Reason is set when there is no pick: no-provider (no bundle of the
	// set satisfies it) or conflict (every provider conflicts with the
	// rest of the resolution); Message says it in words.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// V0Provider is a bundle installed to satisfy a dependency, with its own
// dependencies.
type V0Provider struct {
	V0Pick
	// RequiredBy is the bundle whose dependency first picked it.
	RequiredBy   string               `json:"requiredBy"`
	Dependencies []V0DependencyResult `json:"dependencies,omitempty"`
}

// V0PassedOver is a candidate the solver did not take although it comes
// before the one taken: its dependencies cannot be satisfied (or it
// conflicts with what else is installed).
type V0PassedOver struct {
	Bundle       string               `json:"bundle"`
	Version      string               `json:"version"`
	Channel      string               `json:"channel"`
	Reason       string               `json:"reason"`
	Message      string               `json:"message"`
	Dependencies []V0DependencyResult `json:"dependencies,omitempty"`
}

// V0SubscriptionResult is one Subscription's outcome of a resolution.
type V0SubscriptionResult struct {
	Package   string `json:"package"`
	Catalog   string `json:"catalog"`
	Installed string `json:"installed,omitempty"`
	// Next is the bundle it moves to (nil: it stays).
	Next *V0Pick `json:"next"`
	// Via are Next's edges from the installed CSV.
	Via        []Via          `json:"via,omitempty"`
	PassedOver []V0PassedOver `json:"passedOver,omitempty"`
	// Dependencies are those of the bundle the Subscription ends at (Next,
	// or the installed CSV).
	Dependencies []V0DependencyResult `json:"dependencies,omitempty"`
}

// V0Resolution is one resolution of a namespace (OLM v0's Resolve): per
// Subscription its outcome, the providers installed beside, or the error.
type V0Resolution struct {
	Subscriptions []V0SubscriptionResult `json:"subscriptions"`
	Providers     []V0Provider           `json:"providers,omitempty"`
	Error         string                 `json:"error,omitempty"`
	// Unsatisfied lists, when the resolution fails, what cannot be
	// satisfied (bundle and dependency).
	Unsatisfied []V0PassedOver `json:"unsatisfied,omitempty"`
}

// V0Set is a catalog set as OLM v0 resolves over it. Safe for concurrent
// use; it memoizes each dependency's providers.
type V0Set struct {
	members []V0CatalogMember
	byName  map[string]int

	mu      sync.Mutex
	provs   map[provKey]provList
	indexes map[*Catalog]*v0Index
}

// v0Index maps what the common dependencies ask for to the packages that
// can have it, so that finding a dependency's providers does not test
// every bundle of every catalog: GVK → packages with a bundle providing
// it, olm.package name → packages with a bundle naming it, label →
// packages with a bundle carrying it (each in catalog order).
type v0Index struct {
	gvk    map[gvkPred][]*Package
	pkg    map[string][]*Package
	labels map[string][]*Package
}

func (s *V0Set) index(c *Catalog) *v0Index {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix := s.indexes[c]; ix != nil {
		return ix
	}
	ix := &v0Index{gvk: map[gvkPred][]*Package{}, pkg: map[string][]*Package{}, labels: map[string][]*Package{}}
	add := func(m map[string][]*Package, k string, p *Package) {
		if l := m[k]; len(l) == 0 || l[len(l)-1] != p {
			m[k] = append(l, p)
		}
	}
	for _, p := range c.Packages {
		add(ix.pkg, p.Name, p)
		for _, b := range p.Bundles {
			f := b.v0Facts()
			for _, g := range f.gvks {
				if l := ix.gvk[g]; len(l) == 0 || l[len(l)-1] != p {
					ix.gvk[g] = append(l, p)
				}
			}
			for _, pp := range f.packages {
				add(ix.pkg, pp.name, p)
			}
			for _, l := range f.labels {
				add(ix.labels, l, p)
			}
		}
	}
	s.indexes[c] = ix
	return ix
}

// packagesFor are the packages of c that may hold a bundle satisfying d:
// for a GVK, a package (alone or and-ed first) or a label those the index
// names, else every package.
func (s *V0Set) packagesFor(c *Catalog, d Dependency) []*Package {
	pred := d.pred
	if a, ok := pred.(andPred); ok && len(a) > 0 {
		pred = a[0]
	}
	switch p := pred.(type) {
	case gvkPred:
		return s.index(c).gvk[p]
	case pkgPred:
		return s.index(c).pkg[string(p)]
	case labelPred:
		return s.index(c).labels[string(p)]
	}
	return c.Packages
}

// provKey identifies a dependency's catalog providers: the same
// property value required from the same catalog has the same ones.
type provKey struct {
	dep       string
	preferred string
}

type provList struct {
	vars []v0Var
	err  error
}

// NewV0Set returns the set of members (names unique; a nil Catalog is an
// empty catalog).
func NewV0Set(members []V0CatalogMember) *V0Set {
	s := &V0Set{members: slices.Clone(members), byName: map[string]int{}, provs: map[provKey]provList{}, indexes: map[*Catalog]*v0Index{}}
	for i, m := range s.members {
		s.byName[m.Name] = i
	}
	return s
}

// Member returns the named member, nil when none.
func (s *V0Set) Member(name string) *V0CatalogMember {
	i, ok := s.byName[name]
	if !ok {
		return nil
	}
	return &s.members[i]
}

// Names lists the members' names in the set's order.
func (s *V0Set) Names() []string {
	out := make([]string, len(s.members))
	for i, m := range s.members {
		out[i] = m.Name
	}
	return out
}

// v0Var is a solver variable: a bundle of a catalog's channel, or an
// installed CSV (catalog "").
type v0Var struct {
	catalog string
	channel string
	bundle  *Bundle
}

func (v v0Var) installed() bool { return v.catalog == "" }

// catalogOrder is FindPreferred's order of the catalogs: preferred
// first, then by priority (higher first), then by name.
func (s *V0Set) catalogOrder(preferred string) []*V0CatalogMember {
	out := make([]*V0CatalogMember, 0, len(s.members))
	for i := range s.members {
		out = append(out, &s.members[i])
	}
	slices.SortStableFunc(out, func(a, b *V0CatalogMember) int {
		switch {
		case a.Name == preferred && b.Name != preferred:
			return -1
		case b.Name == preferred && a.Name != preferred:
			return 1
		}
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// catalogProviders are the catalog bundles satisfying dependency d of a
// bundle of catalog preferred, in getBundleVariables' order (without the installed CSVs, which
// come first and are added per resolution).
func (s *V0Set) catalogProviders(d Dependency, preferred string) ([]v0Var, error) {
	key := provKey{d.key, preferred}
	s.mu.Lock()
	if l, ok := s.provs[key]; ok {
		s.mu.Unlock()
		return l.vars, l.err
	}
	s.mu.Unlock()
	var out []v0Var
	var err error
	for _, m := range s.catalogOrder(preferred) {
		if m.Catalog == nil {
			continue
		}
		// The (package, channel) pairs holding a match: the default
		// channel of each package first, then by package, then channel.
		type pc struct {
			ch  *Channel
			def bool
		}
		var pcs []pc
		for _, p := range s.packagesFor(m.Catalog, d) {
			for _, ch := range p.Channels {
				if slices.ContainsFunc(ch.Entries, func(e *Entry) bool { return e.Bundle != nil && d.Matches(e.Bundle) }) {
					pcs = append(pcs, pc{ch, ch == p.DefaultChannel})
				}
			}
		}
		slices.SortStableFunc(pcs, func(a, b pc) int {
			if a.def != b.def {
				if a.def {
					return -1
				}
				return 1
			}
			if c := strings.Compare(a.ch.Package.Name, b.ch.Package.Name); c != 0 {
				return c
			}
			return strings.Compare(a.ch.Name, b.ch.Name)
		})
		for _, x := range pcs {
			chain, cerr := x.ch.V0Chain()
			if cerr != nil {
				err = fmt.Errorf("catalog %s: %w", m.Name, cerr)
				break
			}
			for _, e := range chain {
				if e.Bundle != nil && d.Matches(e.Bundle) {
					out = append(out, v0Var{catalog: m.Name, channel: x.ch.Name, bundle: e.Bundle})
				}
			}
		}
		if err != nil {
			break
		}
	}
	s.mu.Lock()
	s.provs[key] = provList{out, err}
	s.mu.Unlock()
	return out, err
}

// v0Budget bounds the search (guesses per resolution): past it the
// resolution reports that it was not modelled to the end.
const v0Budget = 200000

// resolution is the state of one Resolve.
type resolution struct {
	s        *V0Set
	existing []v0Var // installed CSVs, in Subscription order
	// prohibitedInstalled marks installed CSVs that keep olm.deprecated.
	prohibitedInstalled map[*Bundle]bool
	// installedFrom is each installed CSV's Subscription (its catalog
	// and channel).
	installedFrom map[*Bundle]V0Subscription
	// deps per variable: each dependency with its providers, in order.
	deps map[v0Var][]varDep
	// conflicts are explicit conflicts (a Subscription's candidate and
	// its installed CSV).
	conflicts map[v0Var]v0Var
	err       error

	assumed map[v0Var]bool
	order   []v0Var // assumed, in guess order
	guesses int
}

type varDep struct {
	dep   Dependency
	provs []v0Var
}

// choice is a list of candidates, one of which must be taken.
type choice struct {
	cands []v0Var
}

// depsOf returns v's dependencies with their providers (computed once).
func (r *resolution) depsOf(v v0Var) []varDep {
	if ds, ok := r.deps[v]; ok {
		return ds
	}
	deps, err := v.bundle.V0Dependencies()
	if err != nil {
		if r.err == nil {
			r.err = err
		}
		r.deps[v] = nil
		return nil
	}
	out := make([]varDep, len(deps))
	for i, d := range deps {
		var provs []v0Var
		for _, e := range r.existing {
			if d.Matches(e.bundle) {
				provs = append(provs, e)
			}
		}
		// sortBundles orders the installed CSVs, like any catalog, by
		// package (none is in a default channel).
		slices.SortStableFunc(provs, func(a, b v0Var) int { return strings.Compare(a.bundle.Package.Name, b.bundle.Package.Name) })
		cat, err := r.s.catalogProviders(d, v.catalog)
		if err != nil && r.err == nil {
			r.err = fmt.Errorf("providers of %s for bundle %s: %w", d.Text, v.bundle.Name, err)
		}
		out[i] = varDep{dep: d, provs: append(provs, cat...)}
	}
	r.deps[v] = out
	return out
}

func (r *resolution) prohibited(v v0Var) bool {
	if v.installed() {
		return r.prohibitedInstalled[v.bundle]
	}
	return v.bundle.Prohibited
}

// consistent says whether assuming m keeps the assumptions free of a
// conflict the solver's propagation would find.
func (r *resolution) consistent(m v0Var) bool {
	if r.prohibited(m) {
		return false
	}
	for _, d := range r.depsOf(m) {
		if len(d.provs) == 0 {
			return false
		}
	}
	if c, ok := r.conflicts[m]; ok && r.assumed[c] {
		return false
	}
	fm := m.bundle.v0Facts()
	for _, a := range r.order {
		if c, ok := r.conflicts[a]; ok && c == m {
			return false
		}
		fa := a.bundle.v0Facts()
		for _, p := range fm.packages {
			if slices.ContainsFunc(fa.packages, func(q factPackage) bool { return q.name == p.name }) {
				return false
			}
		}
		for _, g := range fm.gvks {
			if slices.Contains(fa.gvks, g) {
				return false
			}
		}
	}
	return true
}

// search is the solver's walk: the first choice of the queue is
// satisfied by an assumption already made, or each of its candidates is
// tried in order, its dependencies appended to the queue.
func (r *resolution) search(queue []choice) (bool, error) {
	if len(queue) == 0 {
		return true, nil
	}
	c, rest := queue[0], queue[1:]
	if slices.ContainsFunc(c.cands, func(v v0Var) bool { return r.assumed[v] }) {
		return r.search(rest)
	}
	for _, m := range c.cands {
		if r.guesses++; r.guesses > v0Budget {
			return false, fmt.Errorf("the search for a solution passed %d guesses: not modelled further", v0Budget)
		}
		if !r.consistent(m) {
			continue
		}
		r.assumed[m] = true
		r.order = append(r.order, m)
		// The children go after rest in its backing array: what lies
		// there is scratch of a sibling explored before (every frame
		// still running reads only up to its own queue's end, never past
		// rest's), so the queue is never copied.
		next := rest
		for _, d := range r.depsOf(m) {
			next = append(next, choice{d.provs})
		}
		ok, err := r.search(next)
		if err != nil || ok {
			return ok, err
		}
		delete(r.assumed, m)
		r.order = r.order[:len(r.order)-1]
	}
	return false, nil
}

// subPlan is a Subscription's candidates.
type subPlan struct {
	sub     V0Subscription
	pkg     *Package
	current *v0Var
	cands   []v0Var
	hops    map[v0Var]Hop
	err     string // an invalid Subscription (no candidates at all)
}

// Resolve is one OLM v0 resolution of the namespace's Subscriptions
// (anchors in the given order; upstream takes them in Go map order, so
// where the constraints leave a choice a cluster may take either).
func (s *V0Set) Resolve(subs []V0Subscription) V0Resolution {
	r := &resolution{s: s, deps: map[v0Var][]varDep{}, conflicts: map[v0Var]v0Var{}, assumed: map[v0Var]bool{}, prohibitedInstalled: map[*Bundle]bool{}, installedFrom: map[*Bundle]V0Subscription{}}
	out := V0Resolution{Subscriptions: make([]V0SubscriptionResult, len(subs))}
	plans := make([]subPlan, len(subs))
	for i, sub := range subs {
		sr := &out.Subscriptions[i]
		sr.Package, sr.Catalog, sr.Installed = sub.Package, sub.Catalog, sub.Installed
		pl := subPlan{sub: sub, hops: map[v0Var]Hop{}}
		m := s.Member(sub.Catalog)
		if m == nil {
			out.Error = fmt.Sprintf("subscription to %s: no catalog %s in the set (%s)", sub.Package, sub.Catalog, strings.Join(s.Names(), ", "))
			return out
		}
		if m.Catalog != nil {
			pl.pkg = m.Catalog.Package(sub.Package)
		}
		if sub.Installed != "" {
			var b *Bundle
			if pl.pkg != nil {
				b = pl.pkg.Bundle(sub.Installed)
			}
			if b == nil {
				out.Error = fmt.Sprintf("subscription to %s: installed CSV %s is not a bundle of catalog %s", sub.Package, sub.Installed, sub.Catalog)
				return out
			}
			cur := v0Var{bundle: b}
			pl.current = &cur
			r.existing = append(r.existing, cur)
			r.installedFrom[b] = sub
			if sub.InstalledProhibited {
				r.prohibitedInstalled[b] = true
			}
		}
		plans[i] = pl
	}
	for i := range plans {
		pl := &plans[i]
		if pl.pkg == nil {
			pl.err = fmt.Sprintf("no operators found in package %s in the catalog referenced by subscription %s", pl.sub.Package, pl.sub.Package)
		} else {
			q := V0Query{Channel: pl.sub.Channel, StartingCSV: pl.sub.StartingCSV}
			if pl.current != nil {
				in := pl.current.bundle.InstalledV0()
				q.Installed = &in
			}
			hops, err := pl.pkg.V0Candidates(q)
			if err != nil {
				pl.err = err.Error()
			}
			for _, h := range hops {
				b := pl.pkg.Bundle(h.Name)
				if b == nil {
					continue
				}
				v := v0Var{catalog: pl.sub.Catalog, channel: h.Channel, bundle: b}
				pl.cands = append(pl.cands, v)
				pl.hops[v] = h
				if pl.current != nil {
					r.conflicts[v] = *pl.current
				}
			}
		}
		if pl.current != nil {
			pl.cands = append(pl.cands, *pl.current)
		}
	}
	queue := make([]choice, 0, len(plans))
	for i := range plans {
		switch err := plans[i].err; {
		case strings.HasPrefix(err, "no operators found"):
			// NewInvalidSubscriptionVariable: the Subscription is
			// mandatory and prohibited, whatever is installed.
			out.Error = fmt.Sprintf("constraints not satisfiable: subscription %s exists, %s", plans[i].sub.Package, err)
			return out
		case err != "":
			// sortChannel's error fails the resolution.
			out.Error = err
			return out
		}
		queue = append(queue, choice{plans[i].cands})
	}
	// getBundleVariables reads the dependencies of every bundle it can
	// reach — the installed CSVs, every candidate, their providers,
	// theirs — before the solver runs, so one it cannot read fails the
	// resolution even when the solver would not have needed it.
	r.reachAll(plans)
	if r.err != nil {
		out.Error = r.err.Error()
		return out
	}
	ok, err := r.search(queue)
	if r.err != nil {
		out.Error = r.err.Error()
		return out
	}
	if err != nil {
		out.Error = err.Error()
		return out
	}
	if !ok {
		out.Error = "constraints not satisfiable"
		for i := range plans {
			for _, c := range plans[i].cands {
				if po := r.diagnose(c); po != nil {
					out.Unsatisfied = append(out.Unsatisfied, *po)
				}
			}
		}
		if len(out.Unsatisfied) > 0 {
			var msgs []string
			for _, u := range out.Unsatisfied {
				msgs = append(msgs, u.Message)
			}
			out.Error += ": " + strings.Join(firstStrings(msgs, 5), "; ")
		}
		return out
	}
	// The solution: per Subscription the first assumed candidate.
	named := map[v0Var]bool{}
	for i := range plans {
		pl := &plans[i]
		sr := &out.Subscriptions[i]
		for _, c := range pl.cands {
			if !r.assumed[c] {
				if po := r.diagnose(c); po != nil {
					sr.PassedOver = append(sr.PassedOver, *po)
				} else {
					sr.PassedOver = append(sr.PassedOver, V0PassedOver{Bundle: c.bundle.Name, Version: c.bundle.PackageProperty.Version, Channel: c.channel,
						Reason: ReasonConflict, Message: fmt.Sprintf("%s conflicts with the rest of the resolution (a package or API another chosen bundle has)", c.bundle.Name)})
				}
				continue
			}
			named[c] = true
			sr.Dependencies = r.depResults(c)
			if !c.installed() {
				p := r.pick(c)
				sr.Next = &p
				sr.Via = pl.hops[c].Via
			}
			break
		}
	}
	// Providers: every other assumed bundle, in guess order, with the
	// bundle whose dependency picked it.
	for _, v := range r.order {
		if named[v] || v.installed() {
			continue
		}
		p := V0Provider{V0Pick: r.pick(v), Dependencies: r.depResults(v)}
		for _, a := range r.order {
			if slices.ContainsFunc(r.depsOf(a), func(d varDep) bool { return slices.Contains(d.provs, v) }) {
				p.RequiredBy = a.bundle.Name
				break
			}
		}
		out.Providers = append(out.Providers, p)
	}
	return out
}

func firstStrings(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}

// pick describes v.
func (r *resolution) pick(v v0Var) V0Pick {
	p := V0Pick{Catalog: v.catalog, Channel: v.channel, Bundle: v.bundle.Name, Version: v.bundle.PackageProperty.Version, Installed: v.installed()}
	if v.bundle.Package != nil {
		p.Package = v.bundle.Package.Name
	}
	if v.installed() {
		// The installed CSV came from its Subscription's catalog.
		from := r.installedFrom[v.bundle]
		p.Catalog, p.Channel = from.Catalog, from.Channel
	}
	return p
}

// depResults are v's dependencies with the assumed provider of each.
func (r *resolution) depResults(v v0Var) []V0DependencyResult {
	var out []V0DependencyResult
	for _, d := range r.depsOf(v) {
		dr := V0DependencyResult{Property: d.dep.Property, Type: d.dep.Type, Text: d.dep.Text, FailureMessage: d.dep.FailureMessage}
		if i := slices.IndexFunc(d.provs, func(p v0Var) bool { return r.assumed[p] }); i >= 0 {
			p := r.pick(d.provs[i])
			dr.Pick = &p
		} else {
			r.unsatisfied(&dr, d)
		}
		out = append(out, dr)
	}
	return out
}

// unsatisfied fills why d has no pick.
func (r *resolution) unsatisfied(dr *V0DependencyResult, d varDep) {
	if len(d.provs) == 0 {
		dr.Reason = ReasonNoProvider
		dr.Message = fmt.Sprintf("no bundle in catalogs %s provides an operator %s", strings.Join(r.s.Names(), ", "), d.dep.Text)
		if d.dep.FailureMessage != "" {
			dr.Message += " (" + d.dep.FailureMessage + ")"
		}
		return
	}
	dr.Reason = ReasonConflict
	names := make([]string, 0, 3)
	for _, p := range d.provs[:min(3, len(d.provs))] {
		names = append(names, p.describe())
	}
	more := ""
	if len(d.provs) > 3 {
		more = fmt.Sprintf(" and %d more", len(d.provs)-3)
	}
	dr.Message = fmt.Sprintf("its %d providers (%s%s) cannot be installed with the rest of the resolution", len(d.provs), strings.Join(names, ", "), more)
}

func (v v0Var) describe() string {
	if v.installed() {
		return "installed " + v.bundle.Name
	}
	return fmt.Sprintf("%s/%s/%s", v.catalog, v.channel, v.bundle.Name)
}

// diagnose says why candidate c cannot be taken, nil when its own
// dependencies are not the reason (then it conflicts with the rest).
func (r *resolution) diagnose(c v0Var) *V0PassedOver {
	po := &V0PassedOver{Bundle: c.bundle.Name, Version: c.bundle.PackageProperty.Version, Channel: c.channel}
	if c.installed() {
		po.Channel = ""
	}
	if r.prohibited(c) {
		po.Reason = "prohibited"
		po.Message = fmt.Sprintf("%s has the legacy %s property (Prohibited)", c.bundle.Name, propLegacyDeprecate)
		return po
	}
	var msgs []string
	for _, d := range r.depsOf(c) {
		dr := V0DependencyResult{Property: d.dep.Property, Type: d.dep.Type, Text: d.dep.Text, FailureMessage: d.dep.FailureMessage}
		if i := slices.IndexFunc(d.provs, func(p v0Var) bool { return r.assumed[p] }); i >= 0 {
			p := r.pick(d.provs[i])
			dr.Pick = &p
		} else {
			r.unsatisfied(&dr, d)
			msgs = append(msgs, fmt.Sprintf("bundle %s requires an operator %s: %s", c.bundle.Name, d.dep.Text, dr.Message))
		}
		po.Dependencies = append(po.Dependencies, dr)
	}
	if len(msgs) == 0 {
		return nil
	}
	po.Reason = ReasonUnsatisfiedDependency
	po.Message = strings.Join(msgs, "; ")
	return po
}

// reachAll computes the dependencies of every variable reachable from
// the Subscriptions' candidates and the installed CSVs (r.err records
// the first that fails).
func (r *resolution) reachAll(plans []subPlan) {
	seen := map[v0Var]bool{}
	var stack []v0Var
	push := func(v v0Var) {
		if !seen[v] {
			seen[v] = true
			stack = append(stack, v)
		}
	}
	for _, e := range r.existing {
		push(e)
	}
	for i := range plans {
		for _, c := range plans[i].cands {
			push(c)
		}
	}
	for len(stack) > 0 && r.err == nil {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range r.depsOf(v) {
			for _, p := range d.provs {
				push(p)
			}
		}
	}
}
