package opcat

import (
	"context"
	"fmt"
	"slices"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/catalog/treecat"
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tools/mirrorset"
)

// FindPath answers path --catalog a: whether q.OLM reaches q's target in
// the catalog a (read from the tree src or its source). OLM v0 resolves
// dependencies over the whole catalog (any package may provide one), so
// a tree's catalog is then read whole, after a read of q.Package alone
// names a missing package as it does for v1.
func FindPath(ctx context.Context, src *mirror.Source, a Arg, q upgrade.Query, opts func() (source.Options, error)) (*upgrade.Report, error) {
	cat, err := Load(ctx, src, a, []string{q.Package}, opts)
	if err != nil {
		return nil, err
	}
	if q.OLM == upgrade.V0 && a.Tree {
		if cat, err = Load(ctx, src, a, nil, opts); err != nil {
			return nil, err
		}
	}
	var r *upgrade.Report
	switch {
	case q.OLM != upgrade.V0:
		r, err = upgrade.Find(cat.Model, q)
	case cat.Model.Package(q.Package) == nil:
		r, err = upgrade.Find(cat.Model, q) // the error naming the packages it has
	default:
		r, err = upgrade.FindV0InSet(model.NewV0Set([]model.V0CatalogMember{{Name: a.Value, Catalog: cat.Model}}), a.Value, q)
	}
	if err != nil {
		return nil, err
	}
	r.Catalog = a.Value
	return r, nil
}

// FindPathInSet answers path --catalog-set: the installed operator's
// catalog (home, or the only one with the package) for OLM v0, over every
// catalog of the set whole (its dependencies), the whole set for OLM v1.
// file is the set's file; platform is --catalog-platform.
func FindPathInSet(ctx context.Context, src *mirror.Source, file string, set *catalogset.Set, home string, q upgrade.Query, platform string, opts func() (source.Options, error)) (*upgrade.Report, error) {
	var (
		members []upgrade.SetMember
		v0      *model.V0Set
		err     error
	)
	if q.OLM == upgrade.V0 {
		v0, members, err = LoadV0Set(ctx, src, file, set, "", q.Package, platform, opts)
	} else {
		members, err = LoadSetMembers(ctx, src, file, set, "", q.Package, platform, opts)
	}
	if err != nil {
		return nil, err
	}
	if home, err = HomeCatalog("catalog", home, file, members, q.Package); err != nil {
		return nil, err
	}
	if v0 != nil {
		return upgrade.FindV0InSet(v0, home, q)
	}
	return upgrade.FindInSet(members, home, q)
}

// LoadV0Set reads every catalog of the set whole, as OLM v0 resolves
// dependencies over all of them (a dependency may be provided by any
// package), at cluster minor key ("" for sources without minors): the
// V0Set, and the members with package pkg for HomeCatalog.
func LoadV0Set(ctx context.Context, src *mirror.Source, file string, set *catalogset.Set, key, pkg, platform string, opts func() (source.Options, error)) (*model.V0Set, []upgrade.SetMember, error) {
	var v0 []model.V0CatalogMember
	var members []upgrade.SetMember
	for i := range set.Catalogs {
		sc := &set.Catalogs[i]
		m := upgrade.SetMember{Name: sc.Name, Priority: sc.Priority}
		vm := model.V0CatalogMember{Name: sc.Name, Priority: sc.Priority}
		if source := sc.SourceAt(key); source != "" {
			a, err := SetArg(file, sc, source, platform)
			if err != nil {
				return nil, nil, err
			}
			cat, err := Load(ctx, src, a, nil, opts)
			if err != nil {
				return nil, nil, err
			}
			m.Package, vm.Catalog = cat.Model.Package(pkg), cat.Model
		}
		members = append(members, m)
		v0 = append(v0, vm)
	}
	return model.NewV0Set(v0), members, nil
}

// ForInstalls reads from each catalog of args the packages of installs
// it is asked for (an install naming the catalog by its SetName, or the
// only catalog; over a catalog set, inSet, every package from every
// catalog, as OLM v1 looks, and from a catalog of the tree only those it
// has; for OLM v0, which resolves dependencies over every package, the
// whole catalog), each catalog named by its SetName with its priority.
// The catalogs are read together (LoadAll); the first error in the order
// of args is the one reported, a tree's summary that cannot be read
// after the reads before it.
func ForInstalls(ctx context.Context, src *mirror.Source, args []Arg, installs []mirrorset.Install, olm upgrade.Runtime, inSet bool, priority map[string]int32, opts func() (source.Options, error)) ([]*mirrorset.Catalog, error) {
	var reads []Read
	var wantErr error // a tree's summary that cannot be read, after reads
	for _, a := range args {
		var pkgs []string
		for _, in := range installs {
			// Over a catalog set, OLM v1 looks for every package in
			// every catalog.
			if in.Catalog == a.SetName || (in.Catalog == "" && len(args) == 1) || inSet {
				if !slices.Contains(pkgs, in.Package) {
					pkgs = append(pkgs, in.Package)
				}
			}
		}
		if olm == upgrade.V0 {
			// OLM v0 resolves dependencies over every package of the
			// catalogs: read them whole (nil: all.jsonl of a tree).
			pkgs = nil
		} else if a.Tree && inSet {
			// Read only the packages the tree's catalog has: a
			// package it lacks is a catalog of the set without it.
			sum, err := treecat.Summary(ctx, src.Tree, a.Name)
			if err != nil {
				wantErr = fmt.Errorf("--%s %s: %w", a.Flag, a.Value, err)
				break
			}
			pkgs = slices.DeleteFunc(pkgs, func(p string) bool {
				return !slices.ContainsFunc(sum.Packages, func(sp catviews.PackageSummary) bool { return sp.Name == p })
			})
		}
		reads = append(reads, Read{Arg: a, Pkgs: pkgs})
	}
	cats, _, err := LoadAll(ctx, src, reads, false, opts)
	switch {
	case err != nil:
		return nil, err
	case wantErr != nil:
		return nil, wantErr
	}
	for i, cat := range cats {
		cat.Name, cat.Priority = reads[i].Arg.SetName, priority[reads[i].Arg.SetName]
	}
	return cats, nil
}

// MirrorSetArgs are mirror-set's catalogs: those of the catalog set read
// from file (set, nil for none; each with one source), then those of its
// --catalog values (NAME=SOURCE, a bare source when it is the only one, or
// a catalog of the tree), each named in the set once, with the priority
// of each catalog of the set by name.
func MirrorSetArgs(file string, set *catalogset.Set, values []string, platform string) ([]Arg, map[string]int32, error) {
	var args []Arg
	priority := map[string]int32{}
	if set != nil {
		for i := range set.Catalogs {
			sc := &set.Catalogs[i]
			if sc.Source == "" {
				return nil, nil, fmt.Errorf("--catalog-set %s: line %d: catalog %s: mirror-set needs one source, not minors", file, sc.Line, sc.Name)
			}
			a, err := SetArg(file, sc, sc.Source, platform)
			if err != nil {
				return nil, nil, err
			}
			a.SetName = sc.Name
			priority[sc.Name] = sc.Priority
			args = append(args, a)
		}
	}
	for _, v := range values {
		a, err := ParseArg("catalog", v, platform)
		if err != nil {
			return nil, nil, err
		}
		if a.Name == "" {
			a.Name = "catalog"
			if len(values) > 1 {
				return nil, nil, fmt.Errorf("--catalog %s: with several catalogs, name each: NAME=SOURCE", v)
			}
		}
		a.SetName = a.Name
		if slices.ContainsFunc(args, func(b Arg) bool { return b.Name == a.Name }) {
			return nil, nil, fmt.Errorf("--catalog: catalog name %q given twice", a.Name)
		}
		args = append(args, a)
	}
	return args, priority, nil
}
