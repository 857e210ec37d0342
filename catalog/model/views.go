package model

import "slices"

// InstalledView is the per installed bundle answer (the analogue of
// upgraph's per-version files) for a cluster running Installed from
// Channel: what OLM v0 does on a Subscription to that channel, and what
// OLM v1 does for a ClusterExtension with that channel as its filter.
// Its vias carry no skipRange (the channel graph's node of the hop has
// it).
type InstalledView struct {
	Package   string   `json:"package"`
	Channel   string   `json:"channel"`
	Installed GraphRef `json:"installed"`
	OLMV0     V0Result `json:"olmV0"`
	OLMV1     V1Result `json:"olmV1"`
	// OLMV1Catalog and OLMV1PerCatalog are set when other catalogs of the
	// set have the package too (InstalledViewIn): OLMV1 is then the
	// answer across the catalogs, OLMV1Catalog the catalog it resolves
	// from ("" when none wins), OLMV1PerCatalog one line per catalog.
	OLMV1Catalog    string            `json:"olmV1Catalog,omitempty"`
	OLMV1PerCatalog []V1CatalogResult `json:"olmV1PerCatalog,omitempty"`
}

// GraphRef names a bundle with its version and release.
type GraphRef struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Release string `json:"release,omitempty"`
}

// InstalledView answers for an install of the entry's bundle on its
// channel (OLM v1 with the BundleReleaseSupport gate at its default, off).
// An entry without a bundle gets errors.
func (e *Entry) InstalledView() InstalledView {
	return e.installedView(func(in Installed) V0Result {
		return e.Channel.Package.ResolveV0(V0Query{Channel: e.Channel.Name, Installed: &in})
	})
}

// installedView is InstalledView with OLM v0's answer from resolveV0,
// given the installed bundle.
func (e *Entry) installedView(resolveV0 func(Installed) V0Result) InstalledView {
	ch := e.Channel
	v := InstalledView{Package: ch.Package.Name, Channel: ch.Name, Installed: GraphRef{Name: e.Name}}
	b := e.Bundle
	if b == nil {
		v.OLMV0 = V0Result{Semantics: SemanticsV0, Channel: ch.Name, PathToHead: []Hop{}, Error: "no olm.bundle for " + e.Name}
		v.OLMV1 = V1Result{Semantics: SemanticsV1, Channels: []string{ch.Name}, Candidates: []V1Candidate{}, Error: "no olm.bundle for " + e.Name}
		return v
	}
	v.Installed.Version, v.Installed.Release = b.PackageProperty.Version, b.PackageProperty.Release
	v.OLMV0 = resolveV0(b.InstalledV0())
	q := V1Query{Channels: []string{ch.Name}}
	if v1, err := b.InstalledV1(false); err != nil {
		v.OLMV1 = V1Result{Semantics: SemanticsV1, Channels: q.Channels, Candidates: []V1Candidate{},
			Error: "error walking catalogs: error finding upgrade edges: failed to get version and release of installed bundle: " + err.Error()}
	} else {
		q.Installed = &v1
		v.OLMV1 = ch.Package.ResolveV1(q)
	}
	v.withoutRanges()
	return v
}

// withoutRanges leaves the skipRange out of every via of the view: a
// via of type skipRange refers to the skipRange of its hop's entry in
// the via's channel, which that channel's graph holds once
// (GraphNode.SkipRange). Copied into every view, one long skipRange
// made every file of a channel as long as it, several times over
// (issue 24).
func (v *InstalledView) withoutRanges() {
	drop := func(via []Via) {
		for i := range via {
			via[i].Range = ""
		}
	}
	if v.OLMV0.Next != nil {
		drop(v.OLMV0.Next.Via)
	}
	for i := range v.OLMV0.PathToHead {
		drop(v.OLMV0.PathToHead[i].Via)
	}
	if v.OLMV1.Pick != nil {
		drop(v.OLMV1.Pick.Via)
	}
	for i := range v.OLMV1.Candidates {
		drop(v.OLMV1.Candidates[i].Via)
	}
}

// InstalledViewIn is InstalledView with OLM v1 resolving across set, the
// catalogs of a cluster (this entry's catalog among them, each member
// holding its catalog's package of the same name or nil): when another
// member has the package, OLMV1 is ResolveV1Set's answer. OLM v0 stays
// in the entry's catalog (a Subscription names its CatalogSource).
func (e *Entry) InstalledViewIn(set []V1CatalogMember) InstalledView {
	return e.installedViewIn(set, e.InstalledView())
}

// installedViewIn is InstalledViewIn from v, e's InstalledView.
func (e *Entry) installedViewIn(set []V1CatalogMember, v InstalledView) InstalledView {
	n := 0
	for _, m := range set {
		if m.Package != nil {
			n++
		}
	}
	b := e.Bundle
	if n < 2 || b == nil {
		return v
	}
	q := V1Query{Package: e.Channel.Package.Name, Channels: []string{e.Channel.Name}}
	in, err := b.InstalledV1(false)
	if err != nil {
		return v // the one-catalog answer already says it cannot read the installed bundle
	}
	q.Installed = &in
	r := ResolveV1Set(set, q)
	v.OLMV1, v.OLMV1Catalog, v.OLMV1PerCatalog = r.V1Result, r.Catalog, r.PerCatalog
	v.withoutRanges()
	return v
}

// InstalledViews returns the InstalledView of every channel entry of
// the catalog (packages, channels by name; entries in channel order),
// built on all CPUs.
func (c *Catalog) InstalledViews() []InstalledView {
	var es []*Entry
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			es = append(es, ch.Entries...)
		}
	}
	out := make([]InstalledView, len(es))
	parallel(len(es), func(i int) { out[i] = es[i].InstalledView() })
	return out
}

// SkippedPackage is a package left out of a "valid packages only"
// publication, with the problems that fail it. Package may name a package
// the catalog does not have (a blob referring to an unknown package) or
// be "" (a blob naming no package).
type SkippedPackage struct {
	Package  string   `json:"package"`
	Problems Problems `json:"problems"`
}

// ValidOnly returns the catalog restricted to the packages without
// errors (sharing their models; only their problems kept) and the
// skipped packages with their errors, by name.
func (c *Catalog) ValidOnly() (*Catalog, []SkippedPackage) {
	out := &Catalog{byName: map[string]*Package{}}
	errs := map[string]Problems{}
	for _, p := range c.Problems {
		if p.Severity == Error {
			errs[p.Package] = append(errs[p.Package], p)
		}
	}
	for _, pkg := range c.Packages {
		if _, bad := errs[pkg.Name]; bad {
			continue
		}
		out.Packages = append(out.Packages, pkg)
		out.byName[pkg.Name] = pkg
		out.Problems = append(out.Problems, pkg.problems...)
	}
	out.Problems = sortProblems(out.Problems)
	skipped := make([]SkippedPackage, 0, len(errs))
	for name, ps := range errs {
		skipped = append(skipped, SkippedPackage{Package: name, Problems: ps})
	}
	slices.SortFunc(skipped, func(a, b SkippedPackage) int {
		switch {
		case a.Package < b.Package:
			return -1
		case a.Package > b.Package:
			return 1
		}
		return 0
	})
	return out, skipped
}
