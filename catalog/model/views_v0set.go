package model

import (
	"slices"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// DeclaresV0Dependencies says whether a bundle of the package declares a
// dependency OLM v0 resolves (olm.gvk.required, olm.package.required,
// olm.label.required, olm.constraint).
func (p *Package) DeclaresV0Dependencies() bool {
	for _, b := range p.Bundles {
		if slices.ContainsFunc(b.Properties, func(pr declcfg.Property) bool { return isV0DependencyType(pr.Type) }) {
			return true
		}
	}
	return false
}

func isV0DependencyType(t string) bool {
	switch t {
	case propGVKRequired, propPackageRequired, propLabelRequired, propConstraint:
		return true
	}
	return false
}

// InstalledViewInSets is InstalledViewIn with OLM v0 resolving with
// dependencies over v0, the catalog set of a tree, the entry's catalog
// named catalog in it (the Subscription's source): OLMV0 is
// V0Set.ResolvePath's answer (every hop with its dependencies' picks, the
// providers installed, the candidates passed over; Held when it stays for
// unsatisfiable dependencies). A package none of whose bundles declares
// a dependency gets ResolveV0's answer, which is the same, under the same
// semantics label. v0 nil is InstalledViewIn.
func (e *Entry) InstalledViewInSets(v1 []V1CatalogMember, v0 *V0Set, catalog string) InstalledView {
	return e.installedViewInSets(v1, v0, catalog, e.InstalledView, e.Channel.Package.DeclaresV0Dependencies,
		func(q V0SetQuery) V0Result { return v0.ResolvePath(q).V0Result })
}

// BoundedViewInSets is InstalledViewInSets cut by InstalledView.Bounded
// (what e's next/ file holds), with OLM v0's path read from paths, the
// memo of e's channel (V0Paths.Bounded), instead of walked whole: the
// same bytes in time linear in what the file lists.
func (e *Entry) BoundedViewInSets(v1 []V1CatalogMember, v0 *V0Set, catalog string, paths *V0Paths) InstalledView {
	deps := func() bool {
		if paths.deps == nil {
			d := e.Channel.Package.DeclaresV0Dependencies()
			paths.deps = &d
		}
		return *paths.deps
	}
	view := func() InstalledView {
		if v0 != nil && e.Bundle != nil && deps() {
			// ResolvePath answers below; ResolveV0's path is not used.
			return e.installedView(func(Installed) V0Result { return V0Result{} })
		}
		return e.installedView(func(Installed) V0Result { return paths.Bounded(e) })
	}
	resolve := func(q V0SetQuery) V0Result {
		if paths.set == nil || paths.set.set != v0 || paths.set.catalog != catalog {
			paths.set = &v0SetPaths{set: v0, catalog: catalog}
		}
		if r, ok := paths.set.bounded(q, e.Channel); ok {
			return r
		}
		return v0.ResolvePath(q).V0Result
	}
	v := e.installedViewInSets(v1, v0, catalog, view, deps, resolve)
	v.Bounded(e.Channel)
	return v
}

// installedViewInSets is InstalledViewInSets from view (e's
// InstalledView), deps (whether e's package declares OLM v0
// dependencies) and resolve (V0Set.ResolvePath's V0Result, or its
// memo's cut of it).
func (e *Entry) installedViewInSets(v1 []V1CatalogMember, v0 *V0Set, catalog string, view func() InstalledView, deps func() bool, resolve func(V0SetQuery) V0Result) InstalledView {
	v := e.installedViewIn(v1, view())
	if v0 == nil || e.Bundle == nil {
		return v
	}
	ch := e.Channel
	if !deps() {
		v.OLMV0.Semantics = SemanticsV0Set
		return v
	}
	v.OLMV0 = resolve(V0SetQuery{Catalog: catalog, Package: ch.Package.Name, Channel: ch.Name, Installed: e.Name})
	v.withoutRanges()
	return v
}
