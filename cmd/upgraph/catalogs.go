package main

import (
	"errors"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/source"
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
// file (generator.ParseCatalogSpecs); nil when none is given.
func catalogSpecs(c *cli.Context) ([]generator.CatalogSpec, error) {
	values := c.StringSlice("catalog")
	if c.IsSet("catalog") && len(values) == 0 {
		return nil, errors.New("--catalog: empty value; want NAME=SOURCE")
	}
	var set *catalogset.Set
	if c.IsSet("catalog-set") {
		var err error
		if set, err = opcat.ReadSet(c.String("catalog-set")); err != nil {
			return nil, err
		}
	}
	return generator.ParseCatalogSpecs(c.String("catalog-set"), set, values)
}

// checkCatalogPlatform checks --catalog-platform.
func checkCatalogPlatform(c *cli.Context) error {
	return generator.CheckCatalogPlatform(c.String("catalog-platform"))
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
	return generator.CheckCatalogSpecs(specs, c.String("catalog-platform"))
}

// catalogOptions are the options of catalog sources: the registry flags
// release scrapes use, and the cache: --cache DIR keeps catalog images in
// DIR/catalogs, --no-cache keeps nothing.
func catalogOptions(c *cli.Context, log *slog.Logger) (source.Options, error) {
	return generator.CatalogSourceOptions(registry.Options{CAFile: c.String("ca-file"), PlainHTTP: c.Bool("plain-http")}, c.String("catalog-platform"),
		generator.Cache{Dir: c.String("cache"), DirSet: c.IsSet("cache"), Disabled: c.Bool("no-cache")}, log)
}

// catalogOpts is catalogOptions for a library that reads a catalog
// source: called only when one is read.
func catalogOpts(c *cli.Context, log *slog.Logger) func() (source.Options, error) {
	return func() (source.Options, error) { return catalogOptions(c, log) }
}

// catalogSourceSyntax describes catalog sources, for help texts.
const catalogSourceSyntax = source.Syntax
