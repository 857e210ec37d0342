package generator

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/upgraph/upgraph/catalog/model"
	catsource "github.com/upgraph/upgraph/catalog/source"
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
