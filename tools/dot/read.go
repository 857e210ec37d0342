package dot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/upgraph/upgraph/catalog/mermaid"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/tree"
)

// CatalogFormat is how WriteCatalog draws.
type CatalogFormat string

const (
	FormatDOT     CatalogFormat = "dot"
	FormatMermaid CatalogFormat = "mermaid"
)

// CatalogQuery names what WriteCatalog draws: a package of a tree's
// catalog, and one of its channels ("" for all of them: DOT draws the
// cross-channel view graph/P.json, Mermaid every channel graph).
type CatalogQuery struct {
	Catalog, Package, Channel string
	Format                    CatalogFormat
}

// WriteCatalog reads what q names from t (files verified against
// index.json) and draws it on w.
func WriteCatalog(ctx context.Context, w io.Writer, t tree.Tree, q CatalogQuery) error {
	var names []string
	found := false
	for _, c := range t.Manifest().Catalogs {
		names = append(names, c.Name)
		found = found || c.Name == q.Catalog
	}
	if !found {
		if len(names) == 0 {
			return fmt.Errorf("%s has no catalog (generate --catalog writes them)", t)
		}
		return fmt.Errorf("%s has no catalog %q (it has %v)", t, q.Catalog, names)
	}
	dir := views.Dir(q.Catalog)
	var sum views.Summary
	if err := readJSON(ctx, t, dir+views.SummaryFile, &sum); err != nil {
		return err
	}
	var pkg *views.PackageSummary
	for i := range sum.Packages {
		if sum.Packages[i].Name == q.Package {
			pkg = &sum.Packages[i]
		}
	}
	if pkg == nil {
		return fmt.Errorf("catalog %s of %s has no package %q", q.Catalog, t, q.Package)
	}
	var chans []string
	for _, c := range pkg.Channels {
		if q.Channel == "" || c.Name == q.Channel {
			chans = append(chans, c.Graph)
		}
	}
	if len(chans) == 0 {
		var have []string
		for _, c := range pkg.Channels {
			have = append(have, c.Name)
		}
		return fmt.Errorf("package %s of catalog %s has no channel %q (it has %v)", q.Package, q.Catalog, q.Channel, have)
	}
	switch {
	case q.Format == FormatMermaid:
		p := mermaid.Package{Name: pkg.Name, Deprecated: pkg.Deprecated}
		for _, path := range chans {
			var g model.ChannelGraph
			if err := readJSON(ctx, t, dir+path, &g); err != nil {
				return err
			}
			p.Channels = append(p.Channels, &g)
		}
		return mermaid.Write(w, p)
	case q.Channel != "":
		var g model.ChannelGraph
		if err := readJSON(ctx, t, dir+chans[0], &g); err != nil {
			return err
		}
		return WriteChannel(w, &g)
	default:
		var g model.PackageGraph
		if err := readJSON(ctx, t, dir+pkg.Graph, &g); err != nil {
			return err
		}
		return WritePackage(w, &g)
	}
}

func readJSON(ctx context.Context, t tree.Tree, name string, v any) error {
	data, err := t.ReadFile(ctx, name)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s of %s: %w", name, t, err)
	}
	return nil
}
