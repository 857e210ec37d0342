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
	v := e.InstalledViewIn(v1)
	if v0 == nil || e.Bundle == nil {
		return v
	}
	ch := e.Channel
	if !ch.Package.DeclaresV0Dependencies() {
		v.OLMV0.Semantics = SemanticsV0Set
		return v
	}
	r := v0.ResolvePath(V0SetQuery{Catalog: catalog, Package: ch.Package.Name, Channel: ch.Name, Installed: e.Name})
	v.OLMV0 = r.V0Result
	v.withoutRanges()
	return v
}
