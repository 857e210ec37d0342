package generator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/registry"
)

// ParseCatalogSpecs parses the catalogs of a generation: those of the
// catalog set read from file (set; nil for none), each with one source,
// then generate's --catalog values, NAME=SOURCE, each name once; nil when
// none is given.
func ParseCatalogSpecs(file string, set *catalogset.Set, values []string) ([]CatalogSpec, error) {
	var out []CatalogSpec
	seen := map[string]bool{}
	if set != nil {
		for _, sc := range set.Catalogs {
			if sc.Source == "" {
				return nil, fmt.Errorf("--catalog-set %s: line %d: catalog %s: generate needs one source, not minors", file, sc.Line, sc.Name)
			}
			seen[sc.Name] = true
			out = append(out, CatalogSpec{Name: sc.Name, Source: sc.Source, Priority: sc.Priority, InSet: true})
		}
	}
	for _, v := range values {
		name, spec, ok := strings.Cut(strings.TrimSpace(v), "=")
		if !ok {
			return nil, fmt.Errorf("--catalog %q: want NAME=SOURCE, e.g. community=registry.example.com/redhat/community-operator-index:v4.21", v)
		}
		if err := catviews.CheckName(name); err != nil {
			return nil, fmt.Errorf("--catalog %q: %w", v, err)
		}
		if seen[name] {
			return nil, fmt.Errorf("--catalog: catalog name %q given twice (or also in --catalog-set)", name)
		}
		seen[name] = true
		if spec == "" {
			return nil, fmt.Errorf("--catalog %q: no source after '='; want %s", v, source.Syntax)
		}
		out = append(out, CatalogSpec{Name: name, Source: spec})
	}
	return out, nil
}

// CheckCatalogSpecs checks the source of every spec (CheckCatalogSource)
// read for platform, naming the spec.
func CheckCatalogSpecs(specs []CatalogSpec, platform string) error {
	for _, s := range specs {
		if err := CheckCatalogSource("catalog", s.Source, platform); err != nil {
			return fmt.Errorf("%w (in --catalog %s=%s)", err, s.Name, s.Source)
		}
	}
	return nil
}

// CheckCatalogSource checks a catalog source given by --flag as far as
// it can without reading it: the syntax, a directory or file that
// exists, an image reference that parses.
func CheckCatalogSource(flag, spec, platform string) error {
	src, err := source.Parse(spec, source.Options{Client: &registry.Client{}, Platform: platform})
	if err != nil {
		return fmt.Errorf("--%s: %w", flag, err)
	}
	switch s := src.(type) {
	case *source.Dir:
		return cliflag.CheckPath(flag, s.Path, cliflag.WantDir)
	case *source.File:
		return cliflag.CheckPath(flag, s.Path, cliflag.WantFile)
	}
	return nil
}

// CheckCatalogPlatform checks --catalog-platform: OS/ARCH[/VARIANT], not
// empty.
func CheckCatalogPlatform(platform string) error {
	if _, err := source.ParsePlatform(platform); err != nil || platform == "" {
		if err == nil {
			err = errors.New("empty value (leave the flag out for " + source.DefaultPlatform + ")")
		}
		return fmt.Errorf("--catalog-platform: %w", err)
	}
	return nil
}
