package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/registry"
)

// RuleLoad is the rule of a catalog that does not load: a file that is
// not a JSON or YAML stream of blobs, a blob without a schema, keys
// repeated in another case, an olm.* blob that does not decode (opm
// fails the same way before it validates anything).
const RuleLoad = "F0"

// catalogPlatformFlag chooses the image of a multi-platform catalog index.
func catalogPlatformFlag() cli.Flag {
	return &cli.StringFlag{Name: "catalog-platform", Value: source.DefaultPlatform,
		Usage: "the platform (OS/ARCH[/VARIANT]) whose image is read from a multi-platform catalog index"}
}

// catalogSpec is one --catalog NAME=SOURCE of generate, or one catalog
// of its --catalog-set (with its priority).
type catalogSpec struct {
	name, spec string
	priority   int32
	// inSet: the catalog comes from --catalog-set, whose catalogs are
	// one cluster's set.
	inSet bool
}

// catalogSpecs parses generate's --catalog values and --catalog-set
// file; nil when none is given.
func catalogSpecs(c *cli.Context) ([]catalogSpec, error) {
	values := c.StringSlice("catalog")
	if c.IsSet("catalog") && len(values) == 0 {
		return nil, errors.New("--catalog: empty value; want NAME=SOURCE")
	}
	var out []catalogSpec
	seen := map[string]bool{}
	if c.IsSet("catalog-set") {
		file := c.String("catalog-set")
		set, err := readCatalogSet(file)
		if err != nil {
			return nil, err
		}
		for _, sc := range set.Catalogs {
			if sc.Source == "" {
				return nil, fmt.Errorf("--catalog-set %s: line %d: catalog %s: generate needs one source, not minors", file, sc.Line, sc.Name)
			}
			seen[sc.Name] = true
			out = append(out, catalogSpec{name: sc.Name, spec: sc.Source, priority: sc.Priority, inSet: true})
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
		out = append(out, catalogSpec{name: name, spec: spec})
	}
	return out, nil
}

// checkCatalogSource checks a catalog source as far as it can without
// reading it: the syntax, a directory or file that exists, an image
// reference that parses.
func checkCatalogSource(flag, spec, platform string) error {
	src, err := source.Parse(spec, source.Options{Client: &registry.Client{}, Platform: platform})
	if err != nil {
		return fmt.Errorf("--%s: %w", flag, err)
	}
	switch s := src.(type) {
	case *source.Dir:
		return checkPath(flag, s.Path, wantDir)
	case *source.File:
		return checkPath(flag, s.Path, wantFile)
	}
	return nil
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
		if err := checkCatalogSource("catalog", s.spec, c.String("catalog-platform")); err != nil {
			return fmt.Errorf("%w (in --catalog %s=%s)", err, s.name, s.spec)
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

// loadedCatalog is a catalog read and checked, or why not.
type loadedCatalog struct {
	src source.Source
	// problems are every problem found (a load error is one problem,
	// RuleLoad), with the paths shown as displayPath makes them.
	problems model.Problems
	catalog  *catviews.Catalog
	// blobs counts the blobs read (validate: an empty source has none).
	blobs int
}

// loadCatalog reads a catalog source and converts it (catviews.New);
// name is "" for validate, which only wants the problems. A catalog that
// does not load or does not validate has problems and no catalog; an
// error is for a source that cannot be read at all (a missing directory,
// an unreachable registry).
func loadCatalog(c *cli.Context, name string, src source.Source, validOnly bool, log *slog.Logger) (*loadedCatalog, error) {
	start := time.Now()
	cfg, info, err := src.Load(c.Context)
	log.Debug("catalog loaded", "source", src.String(), "duration", time.Since(start))
	defer func() { log.Debug("catalog checked", "source", src.String(), "duration", time.Since(start)) }()
	out := &loadedCatalog{src: src}
	if err != nil {
		var le *declcfg.Error
		if !errors.As(err, &le) {
			return nil, err
		}
		out.problems = displayPaths(model.Problems{{File: le.Pos.File, Line: le.Pos.Line, Severity: model.Error, Rule: RuleLoad, Message: le.Err.Error()}}, src)
		return out, nil
	}
	out.blobs = len(cfg.Metas)
	if name == "" {
		out.problems = displayPaths(model.Convert(cfg).Problems, src)
		return out, nil
	}
	cat, err := catviews.New(name, src.String(), info, cfg, validOnly)
	var ie *catviews.InvalidError
	switch {
	case errors.As(err, &ie):
		out.problems = displayPaths(ie.Problems, src)
	case err != nil:
		return nil, err
	default:
		out.catalog = cat
		out.problems = displayPaths(cat.Model.Problems, src)
	}
	return out, nil
}

// displayPaths returns a copy of ps with the files made paths an editor
// opens: joined to the directory of a dir: or file: source (relative to
// the working directory when it is). Files of an image stay relative to
// its configs directory.
func displayPaths(ps model.Problems, src source.Source) model.Problems {
	ps = slices.Clone(ps)
	var base string
	switch s := src.(type) {
	case *source.Dir:
		base = s.Path
	case *source.File:
		base = filepath.Dir(s.Path)
	default:
		return ps
	}
	for i := range ps {
		if ps[i].File != "" {
			ps[i].File = filepath.Join(base, filepath.FromSlash(ps[i].File))
		}
	}
	return ps
}

// loadGenerateCatalogs reads and checks every --catalog of generate. A
// catalog with errors is not published: every error is written to w and
// the run fails, after every catalog was checked; with validOnly its
// packages without errors are published and each package left out is
// written to w with its errors.
func loadGenerateCatalogs(c *cli.Context, specs []catalogSpec, w io.Writer, log *slog.Logger) ([]*catviews.Catalog, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	opts, err := catalogOptions(c, log)
	if err != nil {
		return nil, err
	}
	validOnly := c.Bool("catalog-valid-only")
	var cats, set []*catviews.Catalog
	var failed []string
	for _, s := range specs {
		src, err := source.Parse(s.spec, opts)
		if err != nil {
			return nil, fmt.Errorf("--catalog %s: %w", s.name, err)
		}
		lc, err := loadCatalog(c, s.name, src, validOnly, log)
		if err != nil {
			return nil, fmt.Errorf("--catalog %s: %w", s.name, err)
		}
		errs, warnings := lc.problems.Count(model.Error), lc.problems.Count(model.Warning)
		if lc.catalog == nil {
			fmt.Fprintf(w, "catalog %s (%s): %s:\n", s.name, src, english.Count(errs, "error"))
			for _, p := range lc.problems {
				if p.Severity == model.Error {
					fmt.Fprintf(w, "  %s\n", p)
				}
			}
			failed = append(failed, fmt.Sprintf("catalog %s (%s): %s, %s", s.name, src, english.Count(errs, "error"), english.Count(warnings, "warning")))
			continue
		}
		for _, sk := range lc.catalog.Skipped {
			what := "package " + sk.Package
			if sk.Package == "" {
				what = "blobs naming no package"
			}
			fmt.Fprintf(w, "catalog %s (%s): %s left out (%s):\n", s.name, src, what, english.Count(sk.Problems.Count(model.Error), "error"))
			for _, p := range displayPaths(sk.Problems, src) {
				if p.Severity == model.Error {
					fmt.Fprintf(w, "  %s\n", p)
				}
			}
		}
		lc.catalog.Priority = s.priority
		n := lc.catalog.Counts()
		log.Info("catalog read", "catalog", s.name, "source", src.String(), "digest", lc.catalog.Info.Digest,
			"packages", n.Packages, "channels", n.Channels, "bundles", n.Bundles, "warnings", warnings, "skippedPackages", n.SkippedPackages)
		cats = append(cats, lc.catalog)
		if s.inSet {
			set = append(set, lc.catalog)
		}
	}
	// The catalogs of --catalog-set are one cluster's set: OLM v1's
	// answers in their next/ files look across them. Catalogs given by
	// --catalog stay alone (a tree often holds the catalogs of several
	// cluster minors, which no cluster resolves over together).
	for _, cat := range set {
		for _, other := range set {
			if other != cat {
				cat.Peers = append(cat.Peers, other)
			}
		}
	}
	if len(failed) > 0 {
		hint := "--catalog-valid-only publishes the packages without errors"
		if validOnly {
			// Given already: the errors are of the catalog's files, which
			// no package can be left out for.
			hint = "--catalog-valid-only leaves out packages, not the files these errors are in"
		}
		return nil, fmt.Errorf("%s; nothing was written (upgraph validate --catalog SOURCE lists every problem and warning; %s)",
			strings.Join(failed, "; "), hint)
	}
	return cats, nil
}

// catalogSummary is what generate says it wrote of the catalogs.
func catalogSummary(cats []*catviews.Catalog) string {
	var parts []string
	for _, cat := range cats {
		n := cat.Counts()
		s := fmt.Sprintf("catalog %s: %s, %s, %s", cat.Name, english.Count(n.Packages, "package"), english.Count(n.Channels, "channel"), english.Count(n.Bundles, "bundle"))
		if n.SkippedPackages > 0 {
			s += fmt.Sprintf(", %s left out", english.Count(n.SkippedPackages, "package"))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// catalogSourceSyntax describes catalog sources, for help texts.
const catalogSourceSyntax = source.Syntax
