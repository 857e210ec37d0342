// Package metastest is catalogd's storage rebuilt as a test oracle for
// what catalog/metas writes and what site and site/edge serve. It is used
// by tests only.
package metastest

import (
	"cmp"
	"slices"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Oracle answers as catalogd does, rebuilt from its storage code
// (operator-controller internal/catalogd/storage: localdir.go
// storeCatalogData, index.go) on the loaded blobs: the catalog file is
// every blob followed by a newline; the index records each blob's section
// under its schema, package and name when not empty; a query starts from
// every section of the schema (of every schema without one), intersects
// with the package's and the name's sections, and concatenates them in
// file order.
type Oracle struct {
	All                         []byte
	bySchema, byPackage, byName map[string][]section
	// Blobs are the schema, package and name of each blob, in load order.
	Blobs [][3]string
}

type section struct{ off, n int }

// NewOracle indexes dc's blobs as catalogd stores them.
func NewOracle(dc *declcfg.DeclarativeConfig) *Oracle {
	o := &Oracle{bySchema: map[string][]section{}, byPackage: map[string][]section{}, byName: map[string][]section{}}
	for _, m := range dc.Metas {
		o.Blobs = append(o.Blobs, [3]string{m.Schema, m.Package, m.Name})
		s := section{len(o.All), len(m.Blob) + 1}
		o.All = append(append(o.All, m.Blob...), '\n')
		if m.Schema != "" {
			o.bySchema[m.Schema] = append(o.bySchema[m.Schema], s)
		}
		if m.Package != "" {
			o.byPackage[m.Package] = append(o.byPackage[m.Package], s)
		}
		if m.Name != "" {
			o.byName[m.Name] = append(o.byName[m.Name], s)
		}
	}
	return o
}

// Get is catalogd's index.Get: the blobs of schema, pkg and name, each
// ignored when empty.
func (o *Oracle) Get(schema, pkg, name string) []byte {
	if schema == "" && pkg == "" && name == "" {
		return o.All // catalogd serves the catalog file itself
	}
	set := map[section]bool{}
	if schema == "" {
		for _, ss := range o.bySchema {
			for _, s := range ss {
				set[s] = true
			}
		}
	} else {
		for _, s := range o.bySchema[schema] {
			set[s] = true
		}
	}
	intersect := func(ss []section) {
		keep := map[section]bool{}
		for _, s := range ss {
			if set[s] {
				keep[s] = true
			}
		}
		set = keep
	}
	if pkg != "" {
		intersect(o.byPackage[pkg])
	}
	if name != "" {
		intersect(o.byName[name])
	}
	sections := make([]section, 0, len(set))
	for s := range set {
		sections = append(sections, s)
	}
	slices.SortFunc(sections, func(a, b section) int { return cmp.Compare(a.off, b.off) })
	out := []byte{}
	for _, s := range sections {
		out = append(out, o.All[s.off:s.off+s.n]...)
	}
	return out
}
