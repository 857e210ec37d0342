package generator

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"

	"github.com/upgraph/upgraph/catalog/declcfg"
	catviews "github.com/upgraph/upgraph/catalog/views"
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

// packageInputs returns the input digest of each package of c, by name.
func packageInputs(c *catviews.Catalog, precompressed bool) map[string]string {
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
	wanted := map[string]hash.Hash{}
	for _, p := range c.Model.Packages {
		wanted[p.Name] = sha256.New()
	}
	orphans := sha256.New()
	var lb []byte
	for i := range c.Config.Metas {
		m := &c.Config.Metas[i]
		pkg := m.Package
		if m.Schema == declcfg.SchemaPackage {
			pkg = m.Name
		}
		h := orphans
		if pkg != "" {
			if h = wanted[pkg]; h == nil {
				continue // a package left out (or none): no files
			}
		}
		lb = binary.LittleEndian.AppendUint64(lb[:0], uint64(len(m.Blob)))
		h.Write(lb)
		h.Write(m.Blob)
	}
	common := append(prefix.Sum(nil), orphans.Sum(nil)...)
	out := make(map[string]string, len(wanted))
	var b []byte
	for name, h := range wanted {
		b = append(b[:0], common...)
		b = appendString(b, name)
		b = h.Sum(b)
		sum := sha256.Sum256(b)
		out[name] = "sha256:" + hex.EncodeToString(sum[:])
	}
	return out
}
