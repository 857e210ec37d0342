package generator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
	catsource "github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/internal/problem"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/release/validate"
)

// ValidateGraphData runs validate's graph-data checks on the graph-data
// tree graphData (OpenGraphData) and, with a release source releases,
// R1 and L-multi-arch against its graph. The paths of a graph-data
// directory are made relative to the working directory (as the
// directory was named), so editors and CI annotations open the right
// file; paths inside an archive or image stay relative to its root.
func ValidateGraphData(ctx context.Context, graphData, releases string, srcOpts source.Options) (validate.Problems, error) {
	gdfs, err := OpenGraphData(ctx, graphData, srcOpts.Registry)
	if err != nil {
		return nil, err
	}
	var opts validate.Options
	if releases != "" {
		src, err := source.Parse(releases, srcOpts)
		if err != nil {
			return nil, err
		}
		g, err := src.Graph(ctx)
		if err != nil {
			return nil, err
		}
		opts = validate.ReleaseOptions(g)
	}
	ps := validate.Validate(gdfs, opts)
	if st, err := os.Stat(graphData); err == nil && st.IsDir() {
		for i := range ps {
			ps[i].File = filepath.Join(graphData, filepath.FromSlash(ps[i].File))
		}
	}
	return ps, nil
}

// ValidateCatalog reads the catalog source spec (validate --catalog)
// with opts and returns its problems (LoadCatalog), and whether it is
// empty: no blob at all and no error (an empty directory or file, which
// generate refuses); an error is for a source that cannot be read at all.
func ValidateCatalog(ctx context.Context, spec string, opts catsource.Options, log *slog.Logger) (model.Problems, bool, error) {
	src, err := catsource.Parse(spec, opts)
	if err != nil {
		return nil, false, fmt.Errorf("--catalog: %w", err)
	}
	lc, err := LoadCatalog(ctx, "", src, false, log)
	if err != nil {
		return nil, false, fmt.Errorf("--catalog: %w", err)
	}
	return lc.Problems, lc.Blobs == 0 && lc.Problems.Count(model.Error) == 0, nil
}

// Validation is what upgraph validate found: the problems of graph-data
// (named GraphData; "" when not validated) and of a catalog (Catalog).
type Validation struct {
	GraphData, Catalog string
	GraphDataProblems  validate.Problems
	CatalogProblems    model.Problems
	// CatalogEmpty: the catalog has no blob at all (ValidateCatalog).
	CatalogEmpty bool
}

// Problems is the one list validate prints: graph-data's problems, then
// the catalog's, which have the same fields and may name what they are
// about.
func (v *Validation) Problems() problem.Problems {
	switch {
	case v.Catalog == "":
		return v.GraphDataProblems
	case v.GraphData == "":
		return v.CatalogProblems
	}
	return append(slices.Clip(v.GraphDataProblems), v.CatalogProblems...)
}

// Err says why validation fails, input by input (errors and warnings
// counted; a catalog without any blob, which generate refuses); nil when
// it passes.
func (v *Validation) Err() error {
	var failed []string
	if n := v.GraphDataProblems.Count(validate.Error); n > 0 {
		failed = append(failed, fmt.Sprintf("graph-data %s: %s, %s", v.GraphData, english.Count(n, "error"), english.Count(v.GraphDataProblems.Count(validate.Warning), "warning")))
	}
	if n := v.CatalogProblems.Count(model.Error); n > 0 {
		failed = append(failed, fmt.Sprintf("catalog %s: %s, %s", v.Catalog, english.Count(n, "error"), english.Count(v.CatalogProblems.Count(model.Warning), "warning")))
	}
	if v.CatalogEmpty {
		failed = append(failed, fmt.Sprintf("catalog %s: no blob at all (an empty directory or file): no package to publish", v.Catalog))
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}
