package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/treecat"
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/mirror"
)

// catalogSetFlag is --catalog-set of path, plan, mirror-set and generate.
func catalogSetFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "catalog-set", Usage: usage}
}

// readCatalogSet reads a --catalog-set file (catalog/catalogset).
func readCatalogSet(file string) (*catalogset.Set, error) {
	if file == "" {
		return nil, fmt.Errorf("--catalog-set: empty value: want a YAML or JSON file (schema/cli/catalog-set.schema.json)")
	}
	if err := cliflag.CheckPath("catalog-set", file, cliflag.WantFile); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--catalog-set: %w", err)
	}
	set, err := catalogset.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("--catalog-set %s: %w", file, err)
	}
	return set, nil
}

// setCatalogArg is the catalogArg of a set's catalog read from source (its
// source, or its source at a minor): a catalog of the tree when it is a
// bare DNS-1123 label naming no file, else a catalog source, taken whole
// (no NAME= prefix is cut from it).
func setCatalogArg(file string, sc *catalogset.Catalog, source, platform string) (catalogArg, error) {
	a := catalogArg{flag: fmt.Sprintf("catalog-set %s: line %d: catalog", file, sc.Line), value: sc.Name, name: sc.Name}
	if _, err := os.Stat(source); err != nil && catviews.CheckName(source) == nil {
		a.tree, a.name = true, source
		return a, nil
	}
	a.spec = source
	return a, checkCatalogSource(a.flag+" "+sc.Name, source, platform)
}

// needsTree reports whether a catalog of the set is read from the tree.
func setNeedsTree(set *catalogset.Set, key string) bool {
	for i := range set.Catalogs {
		src := set.Catalogs[i].SourceAt(key)
		if _, err := os.Stat(src); err != nil && catviews.CheckName(src) == nil {
			return true
		}
	}
	return false
}

// loadSetMembers reads package pkg from every catalog of the set (at the
// cluster minor key, "" for one source), as OLM v1 walks them: each with
// its name and priority, its package nil when the catalog lacks it or
// has no source at that minor.
func loadSetMembers(c *cli.Context, src *mirror.Source, file string, set *catalogset.Set, key, pkg string) ([]upgrade.SetMember, error) {
	log, err := logger(c)
	if err != nil {
		return nil, err
	}
	var out []upgrade.SetMember
	for i := range set.Catalogs {
		sc := &set.Catalogs[i]
		m := upgrade.SetMember{Name: sc.Name, Priority: sc.Priority}
		source := sc.SourceAt(key)
		if source == "" {
			out = append(out, m)
			continue
		}
		a, err := setCatalogArg(file, sc, source, c.String("catalog-platform"))
		if err != nil {
			return nil, err
		}
		if a.tree {
			if src == nil || src.Tree == nil {
				return nil, fmt.Errorf("--%s %s: a catalog of a tree (%s), but --source is a graph endpoint, which has no catalogs", a.flag, sc.Name, source)
			}
			sum, err := treecat.Summary(c.Context, src.Tree, a.name)
			if err != nil {
				return nil, fmt.Errorf("--%s %s: %w", a.flag, sc.Name, err)
			}
			if !slices.ContainsFunc(sum.Packages, func(p catviews.PackageSummary) bool { return p.Name == pkg }) {
				out = append(out, m)
				continue
			}
		}
		cat, err := loadOperatorCatalog(c, src, a, []string{pkg}, log)
		if err != nil {
			return nil, err
		}
		m.Package = cat.Model.Package(pkg)
		out = append(out, m)
	}
	return out, nil
}

// homeCatalog is the catalog an installed operator comes from (its
// Subscription's spec.source): name when given (a catalog of the set),
// else the only catalog of the set that has the package.
func homeCatalog(flag, name, file string, members []upgrade.SetMember, pkg string) (string, error) {
	var has, all []string
	for _, m := range members {
		all = append(all, m.Name)
		if m.Package != nil {
			has = append(has, m.Name)
		}
	}
	switch {
	case name != "":
		if !slices.Contains(all, name) {
			return "", fmt.Errorf("--%s %s: not a catalog of --catalog-set %s (it has %s)", flag, name, file, strings.Join(all, ", "))
		}
		return name, nil
	case len(has) == 1:
		return has[0], nil
	case len(has) == 0:
		return "", fmt.Errorf("no catalog of --catalog-set %s has package %q (it has %s)", file, pkg, strings.Join(all, ", "))
	}
	return "", fmt.Errorf("package %q is in catalogs %s of --catalog-set %s: name the one its Subscription uses (spec.source) with --%s NAME", pkg, strings.Join(has, ", "), file, flag)
}
