// Package mirrorset plans minimal mirror sets for disconnected clusters
// (spec/olm-behaviour.md §6 O6): for a list of installed operators, the
// exact bundles an OLM runtime needs to take each of them from the
// installed bundle to its target, and nothing else, as
//
//   - a filtered file-based catalog (FBC) that operator-registry accepts
//     (opm validate: one head per channel, nothing stranded) and in which
//     the runtime takes exactly the hops it takes in the whole catalog;
//   - an oc-mirror ImageSetConfiguration (mirror.openshift.io/v2alpha1)
//     operators section, with what its version ranges cannot express;
//   - the images: bundle images and their related images.
//
// And the same for a cluster update: the release payloads of a path as
// `upgraph path` plans it (ReleaseSet).
//
// # What is kept
//
// The hops are upgrade.FindInPackage's: OLM v0's V0Next, or OLM v1's
// pick, again and again. The bundle a cluster runs is not in the set (it
// is installed already; the runtimes match it by the name and version
// the cluster reports, not by a catalog entry). A channel keeps the
// bundles the hops land on, plus what the channel needs to stay valid
// when entries are only dropped (entries are never edited, so their
// replaces, skips and skipRange keep their meaning):
//
//   - the replaces chain between the newest and the oldest bundle kept
//     ("chain"): a kept entry whose replaces names a dropped entry ends
//     the chain, and entries below it would be stranded (and OLM v0
//     needs a single replaces chain to order a channel);
//   - for OLM v1, which may land on an entry another entry skips, an
//     entry that skips it ("skipper"): a skipped entry off the chain is
//     valid only while something skips it.
//
// A channel no install uses is dropped, a package no install uses too;
// when the default channel is dropped, the package's defaultChannel names
// the first kept channel (by name). olm.deprecations entries of what is
// dropped go with it. Since every kept entry is the whole catalog's, the
// runtime's candidates in the filtered catalog are a subset of those in
// the whole one, in the same order, holding the one it took: it takes
// the same hop. Compute checks this by replaying every install on the
// filtered catalog (and that upgraph's validation accepts it) before
// returning.
//
// The set is minimal in this sense: removing any one bundle either
// changes a hop of some install or makes the catalog invalid
// (mirrorset_test checks it for every install of the shared real
// catalog).
package mirrorset

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

// Catalog is a catalog the installs name.
type Catalog struct {
	// Name is what Install.Catalog names ("" matches an install without
	// a catalog when it is the only catalog).
	Name string
	// Reference is what the ImageSetConfiguration names as the catalog:
	// the image (pinned by digest when known), else the source read.
	Reference string
	// Image says Reference is a catalog image oc-mirror can read.
	Image  bool
	Config *declcfg.DeclarativeConfig
	Model  *model.Catalog
	// Bundles is the whole catalog's bundle count when Config holds only
	// some of its packages (0: count Model's).
	Bundles int
	// Priority is the catalog's spec.priority: OLM v1 resolves across the
	// catalogs that have a package (highest priority first).
	Priority int32
}

// Why a bundle is in the set.
const (
	// WhyHop: a hop of some install lands on it.
	WhyHop = "hop"
	// WhyChain: it links the replaces chain between kept bundles.
	WhyChain = "chain"
	// WhySkipper: it skips a bundle OLM v1 lands on that is off the
	// chain, which is valid only while something skips it.
	WhySkipper = "skipper"
)

// Plan is a mirror set: how each install moves, and what each catalog
// keeps.
type Plan struct {
	OLM       upgrade.Runtime `json:"olm"`
	Semantics string          `json:"semantics"`
	Installs  []InstallPlan   `json:"installs"`
	Catalogs  []*CatalogSet   `json:"catalogs"`
	// Counts sum the catalogs'.
	Counts Counts `json:"counts"`
}

// Counts are a set's sizes beside the whole catalog's.
type Counts struct {
	Bundles        int `json:"bundles"`
	CatalogBundles int `json:"catalogBundles"`
	Packages       int `json:"packages"`
	Images         int `json:"images"`
}

// InstallPlan is how the runtime moves one install.
type InstallPlan struct {
	Install
	// From is the installed bundle, To the target (null when the channel
	// has no single head).
	From  upgrade.Ref  `json:"from"`
	To    *upgrade.Ref `json:"to"`
	Found bool         `json:"found"`
	// Path names the bundles the hops land on, in order.
	Path   []string        `json:"path"`
	Reason *upgrade.Reason `json:"reason,omitempty"`
	// Notes say what the filtered catalog does beyond the target (the
	// channel keeps bundles above it for other installs).
	Notes []string `json:"notes,omitempty"`
	// Dependencies are the bundles OLM v0 installs beside the path for
	// dependencies (deps.go), in resolution order.
	Dependencies []DependencyPick `json:"dependencies,omitempty"`
}

// CatalogSet is what one catalog keeps.
type CatalogSet struct {
	Name      string        `json:"name"`
	Reference string        `json:"reference"`
	Image     bool          `json:"image"`
	Packages  []*PackageSet `json:"packages"`
	Counts    Counts        `json:"counts"`
	// Images are the kept bundles' images and related images, sorted,
	// each once.
	Images []string `json:"images"`

	cat *Catalog
	// filtered is the filtered catalog Compute checked.
	filtered *model.Catalog
}

// Model is the filtered catalog's model, as Compute checked it (the
// files FBC writes, loaded back and converted).
func (cs *CatalogSet) Model() *model.Catalog { return cs.filtered }

// PackageSet is what one package keeps.
type PackageSet struct {
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel"`
	// DefaultChannelWas is the catalog's default channel when it is
	// dropped (DefaultChannel then names the first kept channel).
	DefaultChannelWas string        `json:"defaultChannelWas,omitempty"`
	Bundles           int           `json:"bundles"`
	PackageBundles    int           `json:"packageBundles"`
	Channels          []*ChannelSet `json:"channels"`
}

// ChannelSet is what one channel keeps.
type ChannelSet struct {
	Name string `json:"name"`
	// Head is the filtered channel's head.
	Head string `json:"head"`
	// Bundles are newest first.
	Bundles []SetBundle `json:"bundles"`
	// Range is the narrowest oc-mirror version range holding the kept
	// bundles, and what else it selects.
	Range Range `json:"range"`
}

// SetBundle is a kept bundle.
type SetBundle struct {
	Name          string   `json:"name"`
	Version       string   `json:"version"`
	Image         string   `json:"image"`
	RelatedImages []string `json:"relatedImages"`
	Why           string   `json:"why"`
}

// Range is an ImageSetConfiguration channel's minVersion and maxVersion
// (oc-mirror keeps a channel's bundles whose version is in the range):
// Exact when no other bundle of the channel is in it, else AlsoSelects
// lists those it adds.
type Range struct {
	MinVersion  string   `json:"minVersion"`
	MaxVersion  string   `json:"maxVersion"`
	Exact       bool     `json:"exact"`
	AlsoSelects []string `json:"alsoSelects,omitempty"`
}

// Error is Compute's error for installs it cannot plan: a catalog,
// package, channel or bundle the catalogs lack, or an invalid package.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

func errorf(format string, args ...any) error { return &Error{fmt.Sprintf(format, args...)} }

// Found reports whether every install reaches its target.
func (p *Plan) Found() bool {
	for _, in := range p.Installs {
		if !in.Found {
			return false
		}
	}
	return true
}

// Compute plans the mirror set of installs for runtime olm. An install
// without a path is a Plan entry with Found false and its reason (the
// catalog sets then hold the others'); the error is for an install the
// catalogs cannot answer (an *Error) or a filtered catalog that fails its
// own checks (a bug).
func Compute(cats []*Catalog, installs []Install, olm upgrade.Runtime) (*Plan, error) {
	if _, err := upgrade.ParseRuntime(string(olm)); err != nil {
		return nil, &Error{err.Error()}
	}
	plan := &Plan{OLM: olm, Semantics: olm.Semantics(), Installs: []InstallPlan{}, Catalogs: []*CatalogSet{}}
	if olm == upgrade.V1 && len(cats) > 1 {
		plan.Semantics = model.SemanticsV1Set
	}
	// need[catalog][package][channel][bundle] → why it is kept: the
	// hops land on it, or OLM v0 installs it for a dependency.
	need := map[*Catalog]map[*model.Package]map[*model.Channel]map[string]string{}
	mark := func(cat *Catalog, p *model.Package, ch *model.Channel, name, why string) {
		if need[cat] == nil {
			need[cat] = map[*model.Package]map[*model.Channel]map[string]string{}
		}
		if need[cat][p] == nil {
			need[cat][p] = map[*model.Channel]map[string]string{}
		}
		if need[cat][p][ch] == nil {
			need[cat][p][ch] = map[string]string{}
		}
		if need[cat][p][ch][name] != WhyHop {
			need[cat][p][ch][name] = why
		}
	}
	var deps *model.V0Set
	if olm == upgrade.V0 {
		deps = v0Set(cats)
		plan.Semantics = model.SemanticsV0Set
	}
	for _, in := range installs {
		cat, err := findCatalog(cats, in.Catalog, in.Package)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in, err)
		}
		p := cat.Model.Package(in.Package)
		if p == nil {
			return nil, errorf("%s: catalog %s has no package %q", in, cat.Name, in.Package)
		}
		if !p.Valid() {
			return nil, errorf("%s: package %s of catalog %s has errors (opm validate rejects it, so no filtered catalog of it is valid): %s",
				in, p.Name, cat.Name, firstError(p))
		}
		q := upgrade.Query{Package: p.Name, Channel: in.Channel, From: in.Version, To: in.Target, OLM: olm}
		r, err := upgrade.FindInPackage(p, q)
		if err != nil {
			return nil, errorf("%s: %v", in, err)
		}
		if olm == upgrade.V1 {
			r = acrossCatalogs(cats, cat, q, r)
		}
		ip := InstallPlan{Install: in, From: r.From, To: r.To, Found: r.Found, Path: []string{}, Reason: r.Reason}
		ip.Catalog, ip.Channel = cat.Name, r.Channel
		if ip.Target == "" {
			ip.Target = upgrade.Head
		}
		for _, h := range r.Hops {
			ip.Path = append(ip.Path, h.To.Name)
		}
		if deps != nil && ip.Found {
			ip.Dependencies = withDependencies(deps, &ip)
		}
		plan.Installs = append(plan.Installs, ip)
		if !ip.Found {
			continue
		}
		ch := p.Channel(r.Channel)
		for _, name := range ip.Path {
			mark(cat, p, ch, name, WhyHop)
		}
		for _, d := range ip.Dependencies {
			dc, _ := findCatalog(cats, d.Catalog, d.Package)
			var dp *model.Package
			var dch *model.Channel
			if dc != nil {
				dp = dc.Model.Package(d.Package)
			}
			if dp != nil {
				dch = dp.Channel(d.Channel)
			}
			if dch == nil {
				return nil, fmt.Errorf("%s: OLM v0 installs %s from %s/%s/%s, which the catalogs lack (a bug)", in, d.Bundle, d.Catalog, d.Package, d.Channel)
			}
			mark(dc, dp, dch, d.Bundle, WhyDependency)
		}
	}
	for _, cat := range cats {
		cs := &CatalogSet{Name: cat.Name, Reference: cat.Reference, Image: cat.Image, Packages: []*PackageSet{}, Images: []string{}, cat: cat}
		cs.Counts.CatalogBundles = cat.Bundles
		if cat.Bundles == 0 {
			for _, p := range cat.Model.Packages {
				cs.Counts.CatalogBundles += len(p.Bundles)
			}
		}
		for _, p := range cat.Model.Packages {
			chans := need[cat][p]
			if len(chans) == 0 {
				continue
			}
			ps, err := keepPackage(p, chans, olm)
			if err != nil {
				return nil, fmt.Errorf("catalog %s: %w", cat.Name, err)
			}
			if ps != nil {
				cs.Packages = append(cs.Packages, ps)
			}
		}
		images := map[string]bool{}
		for _, ps := range cs.Packages {
			cs.Counts.Packages++
			cs.Counts.Bundles += ps.Bundles
			seen := map[string]bool{}
			for _, ch := range ps.Channels {
				for _, b := range ch.Bundles {
					if seen[b.Name] {
						continue
					}
					seen[b.Name] = true
					if b.Image != "" {
						images[b.Image] = true
					}
					for _, ri := range b.RelatedImages {
						images[ri] = true
					}
				}
			}
		}
		cs.Images = slices.Sorted(func(yield func(string) bool) {
			for im := range images {
				if !yield(im) {
					return
				}
			}
		})
		cs.Counts.Images = len(cs.Images)
		plan.Catalogs = append(plan.Catalogs, cs)
		plan.Counts.Bundles += cs.Counts.Bundles
		plan.Counts.CatalogBundles += cs.Counts.CatalogBundles
		plan.Counts.Packages += cs.Counts.Packages
		plan.Counts.Images += cs.Counts.Images
	}
	if err := plan.verify(); err != nil {
		return nil, err
	}
	plan.notes()
	return plan, nil
}

func firstError(p *model.Package) string {
	for _, pr := range p.Problems() {
		if pr.Severity == model.Error {
			return pr.Message
		}
	}
	return ""
}

func findCatalog(cats []*Catalog, name, pkg string) (*Catalog, error) {
	if name == "" {
		if len(cats) == 1 {
			return cats[0], nil
		}
		var names, has []string
		var only *Catalog
		for _, c := range cats {
			names = append(names, c.Name)
			if c.Model.Package(pkg) != nil {
				has, only = append(has, c.Name), c
			}
		}
		if len(has) == 1 {
			return only, nil
		}
		if len(has) > 1 {
			return nil, errorf("no catalog named, and catalogs %s have package %s: name the one its Subscription uses (spec.source)", strings.Join(has, ", "), pkg)
		}
		return nil, errorf("no catalog named: there are %d (%s)", len(cats), strings.Join(names, ", "))
	}
	for _, c := range cats {
		if c.Name == name {
			return c, nil
		}
	}
	var names []string
	for _, c := range cats {
		names = append(names, c.Name)
	}
	return nil, errorf("no catalog %q (given: %s)", name, strings.Join(names, ", "))
}

// acrossCatalogs is OLM v1's answer r for an install from home, checked
// against the other catalogs that have the package: OLM v1 resolves
// across them (upgrade.FindInSet). When that answer differs (a tie, a
// refusal, or a hop resolved from another catalog), the install gets it,
// without a path: a mirror set filters each catalog on its own, and
// cannot keep another catalog's bundle in the path of this one.
func acrossCatalogs(cats []*Catalog, home *Catalog, q upgrade.Query, r *upgrade.Report) *upgrade.Report {
	var set []upgrade.SetMember
	n := 0
	for _, c := range cats {
		m := upgrade.SetMember{Name: c.Name, Priority: c.Priority, Package: c.Model.Package(q.Package)}
		if m.Package != nil {
			n++
		}
		set = append(set, m)
	}
	if n < 2 {
		return r
	}
	rs, err := upgrade.FindInSet(set, home.Name, q)
	if err != nil {
		return r
	}
	for _, h := range rs.Hops {
		if h.Catalog != home.Name {
			rs.Found = false
			rs.Reason = &upgrade.Reason{Code: ReasonOtherCatalog, Bundles: []string{h.To.Name},
				Message: fmt.Sprintf("OLM v1 resolves %s from catalog %s (priority %d), not from %s: it resolves across the catalogs that have package %s, "+
					"and a mirror set keeps each catalog's own bundles: mirror %s's, or give it a lower priority", h.To.Name, h.Catalog, priorityOf(cats, h.Catalog), home.Name, q.Package, h.Catalog)}
			break
		}
	}
	if rs.Found {
		return r
	}
	if rs.StopsAt == nil {
		rs.StopsAt = &rs.From
	}
	return rs
}

func priorityOf(cats []*Catalog, name string) int32 {
	for _, c := range cats {
		if c.Name == name {
			return c.Priority
		}
	}
	return 0
}

// ReasonOtherCatalog: OLM v1 resolves a hop of the install from another
// catalog of the set than the one it is installed from.
const ReasonOtherCatalog = "other-catalog"

// keepPackage decides what package p keeps: per channel with hops, the
// bundles of keepChannel.
func keepPackage(p *model.Package, need map[*model.Channel]map[string]string, olm upgrade.Runtime) (*PackageSet, error) {
	ps := &PackageSet{Name: p.Name, PackageBundles: len(p.Bundles), Channels: []*ChannelSet{}}
	bundles := map[string]bool{}
	for _, ch := range p.Channels { // by name
		hops := need[ch]
		if len(hops) == 0 {
			continue
		}
		cs, err := keepChannel(ch, hops, olm)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", p.Name, err)
		}
		for _, b := range cs.Bundles {
			bundles[b.Name] = true
		}
		ps.Channels = append(ps.Channels, cs)
	}
	if len(ps.Channels) == 0 {
		return nil, nil
	}
	ps.Bundles = len(bundles)
	ps.DefaultChannel = p.DefaultChannelName
	if !slices.ContainsFunc(ps.Channels, func(c *ChannelSet) bool { return c.Name == p.DefaultChannelName }) {
		ps.DefaultChannelWas, ps.DefaultChannel = p.DefaultChannelName, ps.Channels[0].Name
	}
	return ps, nil
}

// keepChannel returns what channel ch keeps for the hops landing on
// hops (each with why: WhyHop or WhyDependency): the hops, the replaces
// chain between them, and the skippers of hops off the chain (OLM v1's,
// and the dependency providers OLM v0 picks there; see the package
// comment).
func keepChannel(ch *model.Channel, hops map[string]string, olm upgrade.Runtime) (*ChannelSet, error) {
	head, err := ch.Head()
	if err != nil {
		return nil, fmt.Errorf("channel %s: %w", ch.Name, err)
	}
	skipped := map[string]bool{}
	skippers := map[string][]*model.Entry{}
	for _, e := range ch.Entries {
		for _, s := range e.Skips {
			skipped[s] = true
			skippers[s] = append(skippers[s], e)
		}
	}
	// The chain: replaces from the head while the target is an entry of
	// the channel and not skipped (operator-registry's walk; in a valid
	// channel every other entry is skipped). OLM v0 lands only on it.
	chain := []*model.Entry{head}
	idx := map[string]int{head.Name: 0}
	for cur := head; cur.Replaces != "" && !skipped[cur.Replaces]; {
		next := ch.Entry(cur.Replaces)
		if next == nil {
			break
		}
		if _, loop := idx[next.Name]; loop {
			return nil, fmt.Errorf("channel %s: a replaces cycle at %s", ch.Name, next.Name)
		}
		idx[next.Name] = len(chain)
		chain = append(chain, next)
		cur = next
	}
	why := map[string]string{}
	lo, hi := -1, -1 // the kept segment of the chain
	extend := func(i int) {
		if lo < 0 || i < lo {
			lo = i
		}
		if hi < 0 || i > hi {
			hi = i
		}
	}
	var off []string // kept entries off the chain (skipped): OLM v1's hops and their skippers
	for _, e := range ch.Entries {
		if hops[e.Name] == "" {
			continue
		}
		why[e.Name] = hops[e.Name]
		if i, ok := idx[e.Name]; ok {
			extend(i)
			continue
		}
		if olm == upgrade.V0 && hops[e.Name] == WhyHop {
			return nil, fmt.Errorf("channel %s: OLM v0 landed on %s, which is off the chain (a bug)", ch.Name, e.Name)
		}
		off = append(off, e.Name)
	}
	kept := func(name string) bool {
		if i, ok := idx[name]; ok {
			return lo >= 0 && lo <= i && i <= hi
		}
		return why[name] != ""
	}
	for q := 0; q < len(off); q++ {
		r := off[q]
		ss := skippers[r]
		if slices.ContainsFunc(ss, func(s *model.Entry) bool { return kept(s.Name) }) {
			continue
		}
		// The skipper on the chain that grows the segment least (the
		// older on a tie); else the first skipper, itself off the chain,
		// which then needs a skipper of its own.
		var best *model.Entry
		bestCost := 0
		for _, s := range ss {
			i, ok := idx[s.Name]
			if !ok {
				continue
			}
			cost := 1
			if lo >= 0 {
				cost = max(hi, i) - min(lo, i) - (hi - lo)
			}
			if best == nil || cost < bestCost || (cost == bestCost && i > idx[best.Name]) {
				best, bestCost = s, cost
			}
		}
		if best != nil {
			why[best.Name] = cmp.Or(why[best.Name], WhySkipper)
			extend(idx[best.Name])
			continue
		}
		if len(ss) == 0 {
			return nil, fmt.Errorf("channel %s: %s is off the chain and nothing skips it (the channel is invalid)", ch.Name, r)
		}
		why[ss[0].Name] = cmp.Or(why[ss[0].Name], WhySkipper)
		off = append(off, ss[0].Name)
	}
	for i := lo; i >= 0 && i <= hi; i++ {
		why[chain[i].Name] = cmp.Or(why[chain[i].Name], WhyChain)
	}
	cs := &ChannelSet{Name: ch.Name, Bundles: []SetBundle{}}
	var keptEntries []*model.Entry
	for _, e := range ch.Entries {
		if kept(e.Name) {
			keptEntries = append(keptEntries, e)
		}
	}
	if lo >= 0 {
		cs.Head = chain[lo].Name
	}
	slices.SortFunc(keptEntries, func(a, b *model.Entry) int {
		if c := b.Bundle.Compare(a.Bundle); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	for _, e := range keptEntries {
		b := e.Bundle
		sb := SetBundle{Name: b.Name, Version: b.PackageProperty.Version, Image: b.Image, RelatedImages: []string{}, Why: why[b.Name]}
		for _, ri := range b.RelatedImages {
			if ri.Image != "" && !slices.Contains(sb.RelatedImages, ri.Image) {
				sb.RelatedImages = append(sb.RelatedImages, ri.Image)
			}
		}
		cs.Bundles = append(cs.Bundles, sb)
	}
	cs.Range = versionRange(ch, keptEntries)
	return cs, nil
}

// versionRange is the narrowest minVersion–maxVersion holding the kept
// entries, and the other entries of the channel it holds.
func versionRange(ch *model.Channel, kept []*model.Entry) Range {
	var lo, hi *model.Bundle
	for _, e := range kept {
		b := e.Bundle
		if lo == nil || b.Compare(lo) < 0 {
			lo = b
		}
		if hi == nil || b.Compare(hi) > 0 {
			hi = b
		}
	}
	r := Range{Exact: true}
	if lo == nil {
		return r
	}
	r.MinVersion, r.MaxVersion = lo.PackageProperty.Version, hi.PackageProperty.Version
	in := func(v semver.Version) bool { return v.GTE(lo.Version) && v.LTE(hi.Version) }
	for _, e := range ch.Entries {
		if e.Bundle == nil || !e.Bundle.VersionOK || slices.Contains(kept, e) {
			continue
		}
		if in(e.Bundle.Version) {
			r.AlsoSelects = append(r.AlsoSelects, e.Name)
		}
	}
	slices.Sort(r.AlsoSelects)
	r.Exact = len(r.AlsoSelects) == 0
	return r
}

// notes says, per install with a target below the head of what its
// channel keeps, that the runtime goes on past the target in the
// filtered catalog too.
func (p *Plan) notes() {
	for i, in := range p.Installs {
		if !in.Found || in.To == nil {
			continue
		}
		for _, cs := range p.Catalogs {
			if cs.Name != in.Catalog {
				continue
			}
			for _, ps := range cs.Packages {
				if ps.Name != in.Package {
					continue
				}
				for _, ch := range ps.Channels {
					if ch.Name == in.Channel && ch.Head != "" && ch.Head != in.To.Name && len(in.Path) > 0 {
						stop := "approve its install plans by hand (installPlanApproval: Manual) to stop there"
						if p.OLM == upgrade.V1 {
							stop = "pin the ClusterExtension's version to stop there"
						}
						p.Installs[i].Notes = append(p.Installs[i].Notes, fmt.Sprintf(
							"channel %s keeps bundles up to %s for other installs: %s goes on past %s (%s)",
							ch.Name, ch.Head, p.OLM.Title(), in.To.Name, stop))
					}
				}
			}
		}
	}
}
