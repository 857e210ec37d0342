package generator

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/writer"
	"github.com/upgraph/upgraph/internal/parallel"
)

// checkCatalogNames refuses catalogs whose names would not make distinct,
// valid directories.
func checkCatalogNames(cats []*catviews.Catalog) error {
	seen := map[string]bool{}
	for _, c := range cats {
		if err := catviews.CheckName(c.Name); err != nil {
			return err
		}
		if seen[c.Name] {
			return fmt.Errorf("catalog name %q given twice", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// renderCatalogs writes every file of each catalog (one catalog at a
// time, its files on all workers), hashing them in batches as the
// release graphs are, and records them and the catalogs in m.
func renderCatalogs(ctx context.Context, cats []*catviews.Catalog, st writer.Staging, m *manifest.Manifest, workers int) error {
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	cats = slices.Clone(cats)
	slices.SortFunc(cats, func(a, b *catviews.Catalog) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range cats {
		var (
			mu    sync.Mutex
			files []*treeFile
		)
		batches := make([]fileBatch, workers)
		for w := range batches {
			batches[w] = fileBatch{maxFiles: 48, maxBytes: 4 << 20}
		}
		err := c.Render(ctx, workers, func(ctx context.Context, w int, f catviews.File) error {
			tf := &treeFile{name: f.Path}
			mu.Lock()
			files = append(files, tf)
			mu.Unlock()
			if batches[w].add(tf, f.Data) {
				return batches[w].flush(ctx, st)
			}
			return nil
		})
		if err == nil {
			err = parallel.Run(ctx, workers, len(batches), func(ctx context.Context, _, i int) error {
				return batches[i].flush(ctx, st)
			})
		}
		if err != nil {
			return err
		}
		n := 0
		for _, f := range files {
			if _, dup := m.Files[f.name]; dup {
				return fmt.Errorf("catalog %s: file %s written twice", c.Name, f.name)
			}
			if strings.HasPrefix(f.name, catviews.Dir(c.Name)) {
				n++
			}
			m.Files[f.name] = f.info
			m.Counts.Files++
			m.Counts.Bytes += f.info.Size
			m.Counts.DistinctFiles++
			m.Counts.DistinctBytes += f.info.Size
		}
		counts := c.Counts()
		m.Catalogs = append(m.Catalogs, manifest.Catalog{
			Name: c.Name, Source: c.Source, Kind: string(c.Info.Kind),
			Resolved: c.Info.Resolved, Digest: c.Info.Digest, Platform: c.Info.Platform,
			ContentDigest: c.ContentDigest(),
			Priority:      c.Priority,
			Path:          catviews.Dir(c.Name) + catviews.SummaryFile,
			Counts: manifest.CatalogCounts{Packages: counts.Packages, Channels: counts.Channels, Bundles: counts.Bundles,
				Files: n, SkippedPackages: counts.SkippedPackages},
			Packages: c.PackageNames(),
		})
	}
	return nil
}
