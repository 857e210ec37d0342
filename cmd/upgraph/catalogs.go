package main

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/tools/opcat"
)

// catalogPlatformFlag chooses the image of a multi-platform catalog index.
func catalogPlatformFlag() cli.Flag {
	return &cli.StringFlag{Name: "catalog-platform", Value: source.DefaultPlatform,
		Usage: "the platform (OS/ARCH[/VARIANT]) whose image is read from a multi-platform catalog index"}
}

// catalogSpecs parses generate's --catalog values and --catalog-set
// file; nil when none is given.
func catalogSpecs(c *cli.Context) ([]generator.CatalogSpec, error) {
	values := c.StringSlice("catalog")
	if c.IsSet("catalog") && len(values) == 0 {
		return nil, errors.New("--catalog: empty value; want NAME=SOURCE")
	}
	var out []generator.CatalogSpec
	seen := map[string]bool{}
	if c.IsSet("catalog-set") {
		file := c.String("catalog-set")
		set, err := opcat.ReadSet(file)
		if err != nil {
			return nil, err
		}
		for _, sc := range set.Catalogs {
			if sc.Source == "" {
				return nil, fmt.Errorf("--catalog-set %s: line %d: catalog %s: generate needs one source, not minors", file, sc.Line, sc.Name)
			}
			seen[sc.Name] = true
			out = append(out, generator.CatalogSpec{Name: sc.Name, Source: sc.Source, Priority: sc.Priority, InSet: true})
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
		out = append(out, generator.CatalogSpec{Name: name, Source: spec})
	}
	return out, nil
}

// checkCatalogPlatform checks --catalog-platform.
func checkCatalogPlatform(c *cli.Context) error {
	if _, err := source.ParsePlatform(c.String("catalog-platform")); err != nil || c.String("catalog-platform") == "" {
		if err == nil {
			err = errors.New("empty value (leave the flag out for " + source.DefaultPlatform + ")")
		}
		return fmt.Errorf("--catalog-platform: %w", err)
	}
	return nil
}

// checkGenerateCatalogs checks generate's --catalog and --catalog-platform.
func checkGenerateCatalogs(c *cli.Context) error {
	if err := checkCatalogPlatform(c); err != nil {
		return err
	}
	specs, err := catalogSpecs(c)
	if err != nil {
		return err
	}
	for _, s := range specs {
		if err := opcat.CheckSource("catalog", s.Source, c.String("catalog-platform")); err != nil {
			return fmt.Errorf("%w (in --catalog %s=%s)", err, s.Name, s.Source)
		}
	}
	return nil
}

// catalogOptions are the options of catalog sources: the registry flags
// release scrapes use, and the cache: --cache DIR keeps catalog images in
// DIR/catalogs, --no-cache keeps nothing.
func catalogOptions(c *cli.Context, log *slog.Logger) (source.Options, error) {
	opts := source.Options{
		Registry: registry.Options{CAFile: c.String("ca-file"), PlainHTTP: c.Bool("plain-http"), Logger: log},
		Platform: c.String("catalog-platform"),
		Logger:   log,
	}
	switch {
	case c.Bool("no-cache"):
		if c.IsSet("cache") {
			return opts, fmt.Errorf("--cache and --no-cache contradict each other")
		}
	case c.String("cache") != "":
		opts.CacheDir = filepath.Join(c.String("cache"), "catalogs")
	default:
		dir, err := source.DefaultCacheDir()
		if err != nil {
			return opts, err
		}
		opts.CacheDir = dir
	}
	return opts, nil
}

// catalogOpts is catalogOptions for a library that reads a catalog
// source: called only when one is read.
func catalogOpts(c *cli.Context, log *slog.Logger) func() (source.Options, error) {
	return func() (source.Options, error) { return catalogOptions(c, log) }
}

// catalogSourceSyntax describes catalog sources, for help texts.
const catalogSourceSyntax = source.Syntax
