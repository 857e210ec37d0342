package generator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/english"
)

// RuleLoad is the rule of a catalog that does not load: a file that is
// not a JSON or YAML stream of blobs, a blob without a schema, keys
// repeated in another case, an olm.* blob that does not decode (opm
// fails the same way before it validates anything).
const RuleLoad = "F0"

// CatalogSpec is one --catalog NAME=SOURCE of generate, or one catalog
// of its --catalog-set (with its priority).
type CatalogSpec struct {
	Name, Source string
	Priority     int32
	// InSet: the catalog comes from --catalog-set, whose catalogs are
	// one cluster's set.
	InSet bool
}

// LoadedCatalog is a catalog read and checked, or why not.
type LoadedCatalog struct {
	Source source.Source
	// Problems are every problem found (a load error is one problem,
	// RuleLoad), with the paths shown as DisplayPaths makes them.
	Problems model.Problems
	// Blobs counts the blobs read (validate: an empty source has none).
	Blobs   int
	Catalog *catviews.Catalog
}

// LoadCatalog reads a catalog source and converts it (catviews.New);
// name is "" for validate, which only wants the problems. A catalog that
// does not load or does not validate has problems and no catalog; an
// error is for a source that cannot be read at all (a missing directory,
// an unreachable registry).
func LoadCatalog(ctx context.Context, name string, src source.Source, validOnly bool, log *slog.Logger) (*LoadedCatalog, error) {
	start := time.Now()
	cfg, info, err := src.Load(ctx)
	log.Debug("catalog loaded", "source", src.String(), "duration", time.Since(start))
	defer func() { log.Debug("catalog checked", "source", src.String(), "duration", time.Since(start)) }()
	out := &LoadedCatalog{Source: src}
	if err != nil {
		var le *declcfg.Error
		if !errors.As(err, &le) {
			return nil, err
		}
		out.Problems = DisplayPaths(model.Problems{{File: le.Pos.File, Line: le.Pos.Line, Severity: model.Error, Rule: RuleLoad, Message: le.Err.Error()}}, src)
		return out, nil
	}
	out.Blobs = len(cfg.Metas)
	if name == "" {
		out.Problems = DisplayPaths(model.Convert(cfg).Problems, src)
		return out, nil
	}
	cat, err := catviews.New(name, src.String(), info, cfg, validOnly)
	var ie *catviews.InvalidError
	switch {
	case errors.As(err, &ie):
		out.Problems = DisplayPaths(ie.Problems, src)
	case err != nil:
		return nil, err
	default:
		out.Catalog = cat
		out.Problems = DisplayPaths(cat.Model.Problems, src)
	}
	return out, nil
}

// Errors lists a rejected catalog's errors.
func (lc *LoadedCatalog) Errors() error {
	var errs []error
	for _, p := range lc.Problems {
		if p.Severity == model.Error {
			errs = append(errs, errors.New(p.String()))
		}
	}
	return fmt.Errorf("not published, %d error(s) (upgraph validate --catalog lists every problem): %w", len(errs), errors.Join(errs...))
}

// DisplayPaths returns a copy of ps with the files made paths an editor
// opens: joined to the directory of a dir: or file: source (relative to
// the working directory when it is). Files of an image stay relative to
// its configs directory.
func DisplayPaths(ps model.Problems, src source.Source) model.Problems {
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

// LoadCatalogs reads and checks every catalog of specs, from sources
// made with opts. A catalog with errors is not published: every error is
// written to w and the run fails, after every catalog was checked; with
// validOnly its packages without errors are published and each package
// left out is written to w with its errors.
func LoadCatalogs(ctx context.Context, specs []CatalogSpec, opts source.Options, validOnly bool, w io.Writer, log *slog.Logger) ([]*catviews.Catalog, error) {
	var cats, set []*catviews.Catalog
	var failed []string
	for _, s := range specs {
		src, err := source.Parse(s.Source, opts)
		if err != nil {
			return nil, fmt.Errorf("--catalog %s: %w", s.Name, err)
		}
		lc, err := LoadCatalog(ctx, s.Name, src, validOnly, log)
		if err != nil {
			return nil, fmt.Errorf("--catalog %s: %w", s.Name, err)
		}
		errs, warnings := lc.Problems.Count(model.Error), lc.Problems.Count(model.Warning)
		if lc.Catalog == nil {
			fmt.Fprintf(w, "catalog %s (%s): %s:\n", s.Name, src, english.Count(errs, "error"))
			for _, p := range lc.Problems {
				if p.Severity == model.Error {
					fmt.Fprintf(w, "  %s\n", p)
				}
			}
			failed = append(failed, fmt.Sprintf("catalog %s (%s): %s, %s", s.Name, src, english.Count(errs, "error"), english.Count(warnings, "warning")))
			continue
		}
		for _, sk := range lc.Catalog.Skipped {
			what := "package " + sk.Package
			if sk.Package == "" {
				what = "blobs naming no package"
			}
			fmt.Fprintf(w, "catalog %s (%s): %s left out (%s):\n", s.Name, src, what, english.Count(sk.Problems.Count(model.Error), "error"))
			for _, p := range DisplayPaths(sk.Problems, src) {
				if p.Severity == model.Error {
					fmt.Fprintf(w, "  %s\n", p)
				}
			}
		}
		lc.Catalog.Priority = s.Priority
		n := lc.Catalog.Counts()
		log.Info("catalog read", "catalog", s.Name, "source", src.String(), "digest", lc.Catalog.Info.Digest,
			"packages", n.Packages, "channels", n.Channels, "bundles", n.Bundles, "warnings", warnings, "skippedPackages", n.SkippedPackages)
		cats = append(cats, lc.Catalog)
		if s.InSet {
			set = append(set, lc.Catalog)
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

// CatalogSummary is what generate says it wrote of the catalogs.
func CatalogSummary(cats []*catviews.Catalog) string {
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

// GeneratedAt is a generation's time: SOURCE_DATE_EPOCH when set, so
// builds can be reproducible, else now.
func GeneratedAt() (time.Time, error) {
	s, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok || s == "" {
		return time.Now(), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since the epoch", s)
	}
	return time.Unix(sec, 0), nil
}
