package generator

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"

	"github.com/upgraph/upgraph/catalog/declcfg"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/internal/precompress"
)

// catalogRenderFormat names how a catalog's package files are rendered
// from its model (catalog/views, catalog/model) and its metas/package/P…
// files from its blobs (catalog/metas): part of every package's input
// digest, like renderFormat for graphs. Change it whenever the same blobs
// would be rendered to other bytes.
const catalogRenderFormat = "upgraph catalog rendering 1"

// Incremental catalogs (docs/incremental.md). A package's files (its
// graph, its channels' graphs and their next/ files) are rendered from
// its model, which Convert makes from the package's own blobs alone, and
// from the catalog's name (OLM v1's answers name it). In a catalog set
// (Peers), the next/ files also answer across the set: OLM v1 over the
// same package of every catalog with its priority, OLM v0's dependencies
// over every package of every catalog. So the digest of a package is that
// of the rendering format, the compressor with gzip copies, the catalog's
// name, the blobs naming no package (kept whole, in case one reaches a
// package's model), the package's name and blobs in load order and, in a
// set, every member's name, priority and content digest: any change in a
// set renders all its packages again, which is exact, if coarse.

// packageInputs returns the input digest of each package of c, by name,
// hashing the packages' blobs on up to workers goroutines, beside c's
// content digest (catalog.json's, and all.jsonl's).
func packageInputs(ctx context.Context, c *catviews.Catalog, precompressed bool, workers int) (map[string]string, error) {
	prefix := sha256.New()
	prefix.Write(appendString(nil, catalogRenderFormat))
	if precompressed {
		prefix.Write(appendString(nil, precompress.Identity))
	} else {
		prefix.Write(appendString(nil, ""))
	}
	prefix.Write(appendString(nil, c.Name))
	if len(c.Peers) > 0 {
		set := append([]*catviews.Catalog{c}, c.Peers...)
		slices.SortFunc(set, func(a, b *catviews.Catalog) int { return cmp.Compare(a.Name, b.Name) })
		var b []byte
		for _, m := range set {
			b = appendString(b, m.Name)
			b = binary.LittleEndian.AppendUint32(b, uint32(m.Priority))
			b = appendString(b, m.ContentDigest())
		}
		prefix.Write(appendString(nil, string(b)))
	} else {
		prefix.Write(appendString(nil, ""))
	}
	// The blobs of each package (the last group: those naming none), in
	// load order.
	group := make(map[string]int, len(c.Model.Packages))
	for i, p := range c.Model.Packages {
		group[p.Name] = i
	}
	orphans := len(c.Model.Packages)
	blobs := make([][]int32, orphans+1)
	for i := range c.Config.Metas {
		m := &c.Config.Metas[i]
		pkg := m.Package
		if m.Schema == declcfg.SchemaPackage {
			pkg = m.Name
		}
		g := orphans
		if pkg != "" {
			var ok bool
			if g, ok = group[pkg]; !ok {
				continue // a package left out (or none): no files
			}
		}
		blobs[g] = append(blobs[g], int32(i))
	}
	sums := make([][]byte, len(blobs))
	// The content digest first (it hashes every blob), then the groups,
	// most blobs first.
	order := make([]int, len(blobs))
	for g := range order {
		order[g] = g
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(blobs[b]), len(blobs[a])) })
	err := parallel.Run(ctx, workers, len(blobs)+1, func(ctx context.Context, _, task int) error {
		if task == 0 {
			c.ContentDigest()
			return nil
		}
		g := order[task-1]
		h := sha256.New()
		var lb [8]byte
		for _, i := range blobs[g] {
			blob := c.Config.Metas[i].Blob
			binary.LittleEndian.PutUint64(lb[:], uint64(len(blob)))
			h.Write(lb[:])
			h.Write(blob)
		}
		sums[g] = h.Sum(nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	common := append(prefix.Sum(nil), sums[orphans]...)
	out := make(map[string]string, len(c.Model.Packages))
	var b []byte
	for g, p := range c.Model.Packages {
		b = append(b[:0], common...)
		b = appendString(b, p.Name)
		b = append(b, sums[g]...)
		sum := sha256.Sum256(b)
		out[p.Name] = "sha256:" + hex.EncodeToString(sum[:])
	}
	return out, nil
}
