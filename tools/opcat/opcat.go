// Package opcat reads the operator catalogs the tools (path, plan,
// mirror-set) are given: a --catalog value (NAME=SOURCE, a catalog source,
// or the name of a catalog of the tree at --source), a --catalog-set file,
// and the catalog each names, read from the tree (only the packages
// asked for) or from its source, converted for planning.
package opcat

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/catalog/treecat"
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tools/mirrorset"
)

// Arg is a --catalog value of path and mirror-set: a catalog
// source (NAME=SOURCE names it), or the name of a catalog of the tree at
// --source.
type Arg struct {
	Flag, Value string
	// Name is the catalog's name: the tree's catalog, or NAME of
	// NAME=SOURCE ("" for a bare source).
	Name string
	Tree bool
	Spec string
	// SetName is the catalog's name in the command's set (mirror-set:
	// NAME of NAME=SOURCE, or of --catalog-set; for a catalog of the tree
	// it may differ from name, the tree's).
	SetName string
}

// ParseArg reads a --catalog value: NAME=SOURCE; a bare DNS-1123
// label that names no file or directory is a catalog of the tree; else a
// source, checked as far as it can be without reading it.
func ParseArg(flag, value, platform string) (Arg, error) {
	a := Arg{Flag: flag, Value: value}
	if value == "" {
		return a, fmt.Errorf("--%s: empty value: want a catalog source (%s) or a catalog name of the tree at --source", flag, source.Syntax)
	}
	if name, spec, ok := strings.Cut(value, "="); ok && catviews.CheckName(name) == nil {
		if spec == "" {
			return a, fmt.Errorf("--%s %q: no source after '='", flag, value)
		}
		a.Name, a.Spec = name, spec
	} else if _, err := os.Stat(value); err != nil && catviews.CheckName(value) == nil {
		a.Name, a.Tree = value, true
		return a, nil
	} else {
		a.Spec = value
	}
	return a, generator.CheckCatalogSource(flag, a.Spec, platform)
}

// Load reads a --catalog: from the tree src (only the
// packages pkgs), or from its source (all of it), and converts it.
// Problems of the catalog do not stop it: a path is answered on an
// invalid catalog too (it says so).
// opts says how a source is read; it is called only when one is.
func Load(ctx context.Context, src *mirror.Source, a Arg, pkgs []string, opts func() (source.Options, error)) (*mirrorset.Catalog, error) {
	if a.Tree {
		if src == nil || src.Tree == nil {
			return nil, fmt.Errorf("--%s %s: a catalog of a tree, but --source is a graph endpoint, which has no catalogs", a.Flag, a.Value)
		}
		cfg, sum, err := treecat.Read(ctx, src.Tree, a.Name, pkgs)
		if err != nil {
			return nil, fmt.Errorf("--%s %s: %w", a.Flag, a.Value, err)
		}
		cat := &mirrorset.Catalog{Name: a.Name, Reference: sum.Source.Reference, Config: cfg, Model: model.Convert(cfg),
			Bundles: sum.Counts.Bundles}
		if sum.Source.Kind == string(source.KindImage) {
			cat.Image = true
			if sum.Source.Resolved != "" {
				cat.Reference = sum.Source.Resolved
			}
		}
		return cat, nil
	}
	sopts, err := opts()
	if err != nil {
		return nil, err
	}
	s, err := source.Parse(a.Spec, sopts)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", a.Flag, err)
	}
	cfg, info, err := s.Load(ctx)
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", a.Flag, a.Value, err)
	}
	cat := &mirrorset.Catalog{Name: a.Name, Reference: s.String(), Config: cfg, Model: model.Convert(cfg)}
	if info.Kind == source.KindImage {
		cat.Image, cat.Reference = true, info.Reference
		if info.Resolved != "" {
			cat.Reference = info.Resolved
		}
	}
	return cat, nil
}

// ReadSet reads a --catalog-set file (catalog/catalogset).
func ReadSet(file string) (*catalogset.Set, error) {
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

// SetArg is the Arg of a set's catalog read from source (its
// source, or its source at a minor): a catalog of the tree when it is a
// bare DNS-1123 label naming no file, else a catalog source, taken whole
// (no NAME= prefix is cut from it).
func SetArg(file string, sc *catalogset.Catalog, source, platform string) (Arg, error) {
	a := Arg{Flag: fmt.Sprintf("catalog-set %s: line %d: catalog", file, sc.Line), Value: sc.Name, Name: sc.Name}
	if _, err := os.Stat(source); err != nil && catviews.CheckName(source) == nil {
		a.Tree, a.Name = true, source
		return a, nil
	}
	a.Spec = source
	return a, generator.CheckCatalogSource(a.Flag+" "+sc.Name, source, platform)
}

// SetNeedsTree reports whether a catalog of the set is read from the tree.
func SetNeedsTree(set *catalogset.Set, key string) bool {
	for i := range set.Catalogs {
		src := set.Catalogs[i].SourceAt(key)
		if _, err := os.Stat(src); err != nil && catviews.CheckName(src) == nil {
			return true
		}
	}
	return false
}

// LoadSetMembers reads package pkg from every catalog of the set (at the
// cluster minor key, "" for one source), as OLM v1 walks them: each with
// its name and priority, its package nil when the catalog lacks it or
// has no source at that minor.
// platform is --catalog-platform; opts says how a source is read.
func LoadSetMembers(ctx context.Context, src *mirror.Source, file string, set *catalogset.Set, key, pkg, platform string, opts func() (source.Options, error)) ([]upgrade.SetMember, error) {
	var out []upgrade.SetMember
	for i := range set.Catalogs {
		sc := &set.Catalogs[i]
		m := upgrade.SetMember{Name: sc.Name, Priority: sc.Priority}
		source := sc.SourceAt(key)
		if source == "" {
			out = append(out, m)
			continue
		}
		a, err := SetArg(file, sc, source, platform)
		if err != nil {
			return nil, err
		}
		if a.Tree {
			if src == nil || src.Tree == nil {
				return nil, fmt.Errorf("--%s %s: a catalog of a tree (%s), but --source is a graph endpoint, which has no catalogs", a.Flag, sc.Name, source)
			}
			sum, err := treecat.Summary(ctx, src.Tree, a.Name)
			if err != nil {
				return nil, fmt.Errorf("--%s %s: %w", a.Flag, sc.Name, err)
			}
			if !slices.ContainsFunc(sum.Packages, func(p catviews.PackageSummary) bool { return p.Name == pkg }) {
				out = append(out, m)
				continue
			}
		}
		cat, err := Load(ctx, src, a, []string{pkg}, opts)
		if err != nil {
			return nil, err
		}
		m.Package = cat.Model.Package(pkg)
		out = append(out, m)
	}
	return out, nil
}

// HomeCatalog is the catalog an installed operator comes from (its
// Subscription's spec.source): name when given (a catalog of the set),
// else the only catalog of the set that has the package.
func HomeCatalog(flag, name, file string, members []upgrade.SetMember, pkg string) (string, error) {
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
