package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
)

// V1CatalogMember is one ClusterCatalog of a set: its name,
// spec.priority, and the package the query names in it (nil when the
// catalog lacks the package).
type V1CatalogMember struct {
	Name     string
	Priority int32
	Package  *Package
}

// V1CatalogResult is one catalog's step of the resolution: whether it
// has the package, how many of its bundles pass the filters, and its
// first candidate after the sort (the catalog's own choice, before the
// choice across catalogs and before validation).
type V1CatalogResult struct {
	Catalog    string       `json:"catalog"`
	Priority   int32        `json:"priority"`
	Found      bool         `json:"found"`
	Candidates int          `json:"candidates"`
	First      *V1Candidate `json:"first,omitempty"`
}

// V1SetResult is OLM v1's resolution over a set of catalogs: the
// winner's candidates and pick (or the error, or the refusal), the
// winning catalog, and one line per catalog.
type V1SetResult struct {
	V1Result
	// Catalog is the catalog the resolved (or refused) bundle comes from.
	Catalog    string            `json:"catalog,omitempty"`
	PerCatalog []V1CatalogResult `json:"perCatalog"`
}

// dependencyProperties are the property types NoDependencyValidation
// refuses.
var dependencyProperties = []string{propPackageRequired, propGVKRequired, propConstraint}

// V1Refusal returns operator-controller's NoDependencyValidation verdict
// on the bundle as a resolved pick: nil when it declares no dependency,
// else the first dependency property in the bundle's order and the
// controller's message (wrapped as Resolve wraps it).
func (b *Bundle) V1Refusal() *V1Refusal {
	for _, p := range b.Properties {
		if slices.Contains(dependencyProperties, p.Type) {
			return &V1Refusal{Bundle: b.Name, Property: p.Type, Message: fmt.Sprintf(
				"validating bundle %q: bundle %q has a dependency declared via property %q which is currently not supported",
				b.Name, b.Name, p.Type)}
		}
	}
	return nil
}

// ResolveV1Set is operator-controller's CatalogResolver.Resolve
// (internal/operator-controller/resolve/catalog.go) over a set of
// catalogs, walked in the given order: per catalog the filters and sort
// of ResolveV1, its first candidate kept; across catalogs a
// non-deprecated first candidate drops the deprecated ones found so far
// (and a deprecated one is dropped when a non-deprecated one is kept);
// then the highest priority wins when the two highest differ, else every
// kept catalog is left and the resolution fails naming them; none left is
// "no bundles found". The winner is then validated (V1Refusal): a
// dependency fails the resolution, with no fallback. The outcome does not
// depend on the order of members.
func ResolveV1Set(members []V1CatalogMember, q V1Query) V1SetResult {
	r := V1SetResult{
		V1Result:   V1Result{Semantics: SemanticsV1Set, Channels: q.Channels, VersionRange: q.VersionRange, Candidates: []V1Candidate{}},
		PerCatalog: []V1CatalogResult{},
	}
	fail := func(msg string) V1SetResult {
		r.Candidates, r.Pick, r.Catalog = []V1Candidate{}, nil, ""
		r.Error = msg
		return r
	}
	pkgName := q.Package
	for _, m := range members {
		if pkgName == "" && m.Package != nil {
			pkgName = m.Package.Name
		}
	}
	var inRange func(semver.Version) bool
	if q.VersionRange != "" {
		var err error
		if inRange, err = mastermindsRange(q.VersionRange); err != nil {
			return fail(fmt.Sprintf("desired version range %q is invalid: %v", q.VersionRange, err))
		}
	}
	type found struct {
		catalog    string
		priority   int32
		pkg        *Package
		cands      []v1Cand
		deprecated bool
	}
	var kept []found
	for _, m := range members {
		cr := V1CatalogResult{Catalog: m.Name, Priority: m.Priority}
		if m.Package == nil {
			r.PerCatalog = append(r.PerCatalog, cr)
			continue
		}
		cr.Found = true
		cands, err := m.Package.v1Candidates(q, inRange)
		if err != nil {
			return fail("error walking catalogs: " + err.Error())
		}
		cr.Candidates = len(cands)
		if len(cands) > 0 {
			first := cands[0].c
			cr.First = &first
		}
		r.PerCatalog = append(r.PerCatalog, cr)
		if len(cands) == 0 {
			continue
		}
		this := found{m.Name, m.Priority, m.Package, cands, cands[0].deprecated}
		if len(kept) > 0 {
			prior := kept[len(kept)-1].deprecated
			if this.deprecated && !prior {
				continue
			}
			if !this.deprecated && prior {
				kept = kept[:0]
			}
		}
		kept = append(kept, this)
	}
	if len(kept) > 1 {
		// Highest priority first (stable: the message sorts the names
		// anyway); a single highest wins, else all are left.
		slices.SortStableFunc(kept, func(a, b found) int {
			switch {
			case a.priority > b.priority:
				return -1
			case a.priority < b.priority:
				return 1
			}
			return 0
		})
		if kept[0].priority != kept[1].priority {
			kept = kept[:1]
		}
	}
	if len(kept) != 1 {
		var sb strings.Builder
		if q.Installed != nil {
			fmt.Fprintf(&sb, "error upgrading from currently installed version %q: ", q.Installed.Version)
		}
		if len(kept) > 1 {
			fmt.Fprintf(&sb, "found bundles for package %q ", pkgName)
		} else {
			fmt.Fprintf(&sb, "no bundles found for package %q ", pkgName)
		}
		if q.VersionRange != "" {
			fmt.Fprintf(&sb, "matching version %q ", q.VersionRange)
		}
		if len(q.Channels) > 0 {
			fmt.Fprintf(&sb, "in channels %v ", q.Channels)
		}
		if len(kept) > 1 {
			names := make([]string, len(kept))
			for i, k := range kept {
				names[i] = k.catalog
			}
			slices.Sort(names)
			fmt.Fprintf(&sb, "in multiple catalogs with the same priority %v ", names)
		}
		return fail(strings.TrimSpace(sb.String()))
	}
	win := kept[0]
	r.Catalog = win.catalog
	for _, c := range win.cands {
		r.Candidates = append(r.Candidates, c.c)
	}
	if err := win.cands[0].vrErr; err != nil {
		r.Error = fmt.Sprintf("error getting resolved bundle version for bundle %q: %v", win.cands[0].c.Name, err)
		return r
	}
	if b := win.pkg.Bundle(win.cands[0].c.Name); b != nil {
		if ref := b.V1Refusal(); ref != nil {
			r.Refusal = ref
			r.Error = ref.Message
			return r
		}
	}
	r.Pick = &r.Candidates[0]
	return r
}
