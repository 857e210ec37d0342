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
// content digest (catalog.json's, and all.jsonl's), and the identities
// of c's blobs that this hashing gives.
func packageInputs(ctx context.Context, c *catviews.Catalog, precompressed bool, workers int) (map[string]string, *blobIdentities, error) {
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
		return nil, nil, err
	}
	ids := &blobIdentities{sums: sums, group: make([]int32, len(c.Config.Metas)), pos: make([]int32, len(c.Config.Metas))}
	for i := range ids.group {
		ids.group[i] = -1
	}
	for g, lines := range blobs {
		for k, i := range lines {
			ids.group[i], ids.pos[i] = int32(g), int32(k)
		}
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
	return out, ids, nil
}

// segmentInputsFormat names how the parts of segmented copies are named
// (blobIdentities.partInputs): part of each part's digest.
const segmentInputsFormat = "upgraph segment part 1"

// blobIdentities name each blob of a catalog by what it is made of,
// without hashing it again: the digest of its group's blobs (a package's
// blobs in load order, each preceded by its length, as packageInputs
// hashes them; the blobs naming no package are one group) and its place
// among them. Blobs of the same identity have the same bytes. A blob of
// a package the model lacks has none.
type blobIdentities struct {
	sums [][]byte // by group
	// group and pos are, by blob (an index of the catalog's blobs), its
	// group (-1: none) and its place in it.
	group, pos []int32
}

// partInputs returns the digest of each part of a file made of the
// given blobs (each followed by a newline) and cut at cuts (catalog/metas
// Segments): that of its blobs' identities in order, so that a part
// whose digest the previous generation lists holds the same bytes as
// that generation's part. A part holding a blob without identity gets
// "", which names nothing.
func (ids *blobIdentities) partInputs(metas []declcfg.Meta, lines []int32, cuts []int) []string {
	out := make([]string, 0, len(cuts)+1)
	h := sha256.New()
	named := true
	start := func() {
		h.Reset()
		h.Write(appendString(nil, segmentInputsFormat))
		named = true
	}
	end := func() {
		if named {
			out = append(out, "sha256:"+hex.EncodeToString(h.Sum(nil)))
		} else {
			out = append(out, "")
		}
	}
	start()
	var b []byte
	off, next := 0, 0
	for _, i := range lines {
		if next < len(cuts) && off == cuts[next] {
			end()
			start()
			next++
		}
		off += len(metas[i].Blob) + 1
		g := ids.group[i]
		if g < 0 {
			named = false
			continue
		}
		b = append(b[:0], ids.sums[g]...)
		b = binary.LittleEndian.AppendUint32(b, uint32(ids.pos[i]))
		h.Write(b)
	}
	end()
	if next != len(cuts) {
		return nil // cuts not at blob boundaries: cannot happen (catalog/metas cuts between lines)
	}
	return out
}
