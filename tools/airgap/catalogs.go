package airgap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// MirrorPrefix marks a mirrored catalog's source: index.json's "source"
// and catalog.json's source "reference" are the original's with this
// prefix (once, however often the tree is mirrored again); the other
// members of the source (kind, resolved, digest, platform) are the
// original's.
const MirrorPrefix = "mirror:"

// CatalogResult says what Mirror did with one catalog.
type CatalogResult struct {
	Name                        string
	Packages, Channels, Bundles int
	// Images counts the image references (bundle images and related
	// images) rewritten; Unmatched lists those no mirror matched, Tagged
	// those pinned by tag rather than digest (each once, sorted).
	Images    int
	Unmatched []string
	Tagged    []string
}

// sourceCatalogs reads the selected catalogs of a source tree from their
// all.jsonl (every blob, checked against index.json), keeps the selected
// packages, rewrites bundle and related images and converts them again
// (catalog/views.New), ready for generator.Render.
func sourceCatalogs(ctx context.Context, src tree.Tree, opts Options, rw *mirror.PayloadRewriter) ([]*catviews.Catalog, []CatalogResult, error) {
	m := src.Manifest()
	var picked []manifest.Catalog
	for _, name := range opts.Catalogs {
		if err := catviews.CheckName(name); err != nil {
			return nil, nil, fmt.Errorf("--catalog: %w", err)
		}
		i := slices.IndexFunc(m.Catalogs, func(c manifest.Catalog) bool { return c.Name == name })
		if i < 0 {
			return nil, nil, fmt.Errorf("--catalog %s: the tree has no such catalog (it has %s)", name, catalogNames(m.Catalogs))
		}
	}
	for _, c := range m.Catalogs {
		if opts.Catalogs == nil || slices.Contains(opts.Catalogs, c.Name) {
			picked = append(picked, c)
		}
	}
	if opts.Packages != nil {
		for _, p := range opts.Packages {
			if p == "" {
				return nil, nil, errors.New("--package: empty package name")
			}
			if !slices.ContainsFunc(picked, func(c manifest.Catalog) bool { return slices.Contains(c.Packages, p) }) {
				return nil, nil, fmt.Errorf("--package %s: no catalog mirrored has this package (catalogs: %s)", p, catalogNames(picked))
			}
		}
	}
	var (
		cats []*catviews.Catalog
		res  []CatalogResult
	)
	for _, mc := range picked {
		if opts.Packages != nil && !slices.ContainsFunc(opts.Packages, func(p string) bool { return slices.Contains(mc.Packages, p) }) {
			opts.Logger.Info("catalog left out: it has none of the packages selected", "catalog", mc.Name)
			continue
		}
		cat, r, err := mirrorCatalog(ctx, src, mc, opts.Packages, rw, len(opts.Payloads) > 0)
		if err != nil {
			return nil, nil, fmt.Errorf("catalog %s: %w", mc.Name, err)
		}
		cats = append(cats, cat)
		res = append(res, r)
	}
	return cats, res, nil
}

func catalogNames(cs []manifest.Catalog) string {
	if len(cs) == 0 {
		return "none"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// mirrorCatalog rebuilds one catalog of the source tree.
func mirrorCatalog(ctx context.Context, src tree.Tree, mc manifest.Catalog, packages []string, rw *mirror.PayloadRewriter, hasRules bool) (*catviews.Catalog, CatalogResult, error) {
	res := CatalogResult{Name: mc.Name}
	sumData, err := src.ReadFile(ctx, mc.Path)
	if err != nil {
		return nil, res, err
	}
	var sum catviews.Summary
	if err := json.Unmarshal(sumData, &sum); err != nil {
		return nil, res, fmt.Errorf("%s: %w", mc.Path, err)
	}
	allPath := catviews.Dir(mc.Name) + metas.AllFile
	all, err := src.ReadFile(ctx, allPath)
	if err != nil {
		return nil, res, err
	}
	cfg, err := declcfg.LoadReader(ctx, bytes.NewReader(all), allPath)
	if err != nil {
		return nil, res, err
	}
	keep := func(string) bool { return true }
	if packages != nil {
		keep = func(p string) bool { return p != "" && slices.Contains(packages, p) }
	}
	unmatched, tagged := map[string]bool{}, map[string]bool{}
	var buf bytes.Buffer
	for i := range cfg.Metas {
		meta := &cfg.Metas[i]
		pkg := meta.Package
		if meta.Schema == declcfg.SchemaPackage {
			pkg = meta.Name
		}
		if !keep(pkg) {
			continue
		}
		blob := []byte(meta.Blob)
		if meta.Schema == declcfg.SchemaBundle {
			n := 0
			if blob, n, err = rewriteBundle(blob, func(img string) string {
				if img == "" {
					return img
				}
				if mirror.PayloadDigest(img) == "" {
					tagged[img] = true
				}
				out, ok := rw.Rewrite(img)
				if !ok {
					if hasRules {
						unmatched[img] = true
					}
					return img
				}
				return out
			}); err != nil {
				return nil, res, fmt.Errorf("%s:%d: %w", allPath, meta.Pos.Line, err)
			}
			res.Images += n
		}
		buf.Write(blob)
		buf.WriteByte('\n')
	}
	res.Unmatched, res.Tagged = sortedKeys(unmatched), sortedKeys(tagged)
	// Loading the rewritten stream again gives the blobs exactly as
	// catalogd would store them and the typed values that go with them.
	if cfg, err = declcfg.LoadReader(ctx, &buf, allPath); err != nil {
		return nil, res, err
	}
	info := source.Info{Kind: source.Kind(sum.Source.Kind), Reference: withMirrorPrefix(sum.Source.Reference),
		Resolved: sum.Source.Resolved, IndexDigest: sum.Source.IndexDigest, Platforms: sum.Source.Platforms,
		Digest: sum.Source.Digest, Platform: sum.Source.Platform, ConfigsDir: sum.Source.ConfigsDir}
	cat, err := catviews.New(mc.Name, withMirrorPrefix(mc.Source), info, cfg, false)
	if err != nil {
		return nil, res, err
	}
	// The packages the source left out for their errors stay listed, as
	// far as they are selected.
	for _, s := range sum.Skipped {
		if packages == nil || slices.Contains(packages, s.Package) {
			cat.Skipped = append(cat.Skipped, model.SkippedPackage{Package: s.Package, Problems: s.Problems})
		}
	}
	n := cat.Counts()
	res.Packages, res.Channels, res.Bundles = n.Packages, n.Channels, n.Bundles
	return cat, res, nil
}

func withMirrorPrefix(s string) string {
	if strings.HasPrefix(s, MirrorPrefix) {
		return s
	}
	return MirrorPrefix + s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// rewriteBundle applies rewrite to an olm.bundle blob's image and to the
// image of each of its relatedImages, and returns the blob re-encoded as
// operator-registry encodes blobs (keys sorted, no HTML escaping; numbers
// kept as written) and how many references changed. Keys are matched as
// encoding/json matches struct fields, case-insensitively, so that every
// key operator-registry could read as the image is rewritten. A blob
// without a change is returned as it is.
func rewriteBundle(blob []byte, rewrite func(string) string) ([]byte, int, error) {
	dec := json.NewDecoder(bytes.NewReader(blob))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, 0, err
	}
	n := 0
	image := func(obj map[string]any) {
		for k, x := range obj {
			if s, ok := x.(string); ok && strings.EqualFold(k, "image") {
				if r := rewrite(s); r != s {
					obj[k] = r
					n++
				}
			}
		}
	}
	image(v)
	for k, x := range v {
		list, ok := x.([]any)
		if !ok || !strings.EqualFold(k, "relatedImages") {
			continue
		}
		for _, e := range list {
			if obj, ok := e.(map[string]any); ok {
				image(obj)
			}
		}
	}
	if n == 0 {
		return blob, 0, nil
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, 0, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte{'\n'}), n, nil
}
