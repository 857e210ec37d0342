// Package views renders an operator catalog as the static files upgraph
// publishes under operators/<catalog>/ of a tree (docs/operators.md):
//
//	catalog.json              the summary (Summary)
//	all.jsonl, metas/…        the blobs as catalogd serves them (catalog/metas)
//	graph/P.json              the cross-channel view of package P (model.PackageGraph)
//	graph/P/CH.json           the graph of channel CH of P (model.ChannelGraph)
//	next/P/CH/B.json          for a cluster running bundle B from channel CH:
//	                          OLM v0's next hop and path to the head, OLM v1's
//	                          candidates and pick or refusal, across the
//	                          catalogs of the set that have P, and OLM v0's
//	                          dependencies over the set with each one's
//	                          pick (model.BoundedViewInSets), at most
//	                          model.FileListMax hops and candidates
//	                          (model.InstalledView.Bounded)
//
// Package, channel and bundle names are encoded as file names by
// EncodeName. Every file is compact JSON (the .jsonl files one blob a
// line) and a deterministic function of the catalog's blobs: the same
// catalog from a directory, a single file or an image gives the same
// bytes, catalog.json's "source" aside.
package views

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/internal/parallel"
)

// Root is the directory of a tree holding every catalog.
const Root = "operators/"

// SummaryFile is the name of a catalog's summary in its directory.
const SummaryFile = "catalog.json"

// Dir is the directory of catalog name in a tree ("operators/NAME/").
func Dir(name string) string { return Root + name + "/" }

// PackageGraphPath is the cross-channel view of a package, relative to
// its catalog's directory.
func PackageGraphPath(pkg string) string { return "graph/" + EncodeName(pkg) + ".json" }

// ChannelGraphPath is the graph of a package's channel, relative to its
// catalog's directory.
func ChannelGraphPath(pkg, channel string) string {
	return "graph/" + EncodeName(pkg) + "/" + EncodeName(channel) + ".json"
}

// NextDir is the directory of a channel's per installed bundle files,
// relative to its catalog's directory.
func NextDir(pkg, channel string) string {
	return "next/" + EncodeName(pkg) + "/" + EncodeName(channel) + "/"
}

// NextPath is the per installed bundle file of a channel entry, relative
// to its catalog's directory.
func NextPath(pkg, channel, bundle string) string {
	return NextDir(pkg, channel) + EncodeName(bundle) + ".json"
}

// namePattern is a catalog name: a DNS-1123 label, as the name of a
// ClusterCatalog is, and what catalogd's URLs (/catalogs/NAME/…) take.
var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// CheckName reports whether name can name a catalog: a DNS-1123 label (at
// most 63 characters of [a-z0-9-], starting and ending alphanumeric).
func CheckName(name string) error {
	if len(name) > 63 || !namePattern.MatchString(name) {
		return fmt.Errorf("catalog name %q: want a DNS-1123 label (at most 63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit)", name)
	}
	return nil
}

// Catalog is a catalog ready to publish: the blobs and the model of its
// valid packages (all of them unless New was asked for the valid ones
// only).
type Catalog struct {
	Name string
	// Priority is the catalog's spec.priority in its set (OLM v1 prefers
	// the highest across catalogs).
	Priority int32
	// Peers are the other catalogs of its catalog set (generate
	// --catalog-set): a package they have too gets OLM v1's answer across
	// the catalogs in its next/ files. Set before Render.
	Peers []*Catalog
	// Source names where it came from, as source.Source.String() does.
	Source string
	Info   source.Info
	// Config holds the published blobs; Model is their model, without
	// errors.
	Config *declcfg.DeclarativeConfig
	Model  *model.Catalog
	// Skipped are the packages left out (New with validOnly), with the
	// errors that fail them.
	Skipped []model.SkippedPackage

	digestOnce sync.Once
	digest     string
}

// InvalidError is New's error for a catalog with errors: Problems are
// all of its problems, errors and warnings, sorted by file and line.
type InvalidError struct {
	Name     string
	Problems model.Problems
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("catalog %s: %s, %s (operator-registry's opm validate rejects it)", e.Name,
		english.Count(e.Problems.Count(model.Error), "error"), english.Count(e.Problems.Count(model.Warning), "warning"))
}

// New converts and validates cfg, the catalog named name read from src
// (info as its Load returned). A catalog with an error is refused with an
// *InvalidError, unless validOnly: then its packages without errors are
// kept, the others listed in Skipped, and the blobs of skipped packages
// (or naming a package the catalog lacks) are left out of Config.
func New(name, src string, info source.Info, cfg *declcfg.DeclarativeConfig, validOnly bool) (*Catalog, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	m := model.Convert(cfg)
	c := &Catalog{Name: name, Source: src, Info: info, Config: cfg, Model: m}
	if m.Valid() {
		return c, nil
	}
	if !validOnly {
		return nil, &InvalidError{Name: name, Problems: m.Problems}
	}
	// Leaving packages out may change what is left (a blob naming a
	// package that is now gone); convert again until nothing fails.
	skipped := map[string]model.SkippedPackage{}
	for round := 0; !m.Valid(); round++ {
		if round == 8 { // cannot happen: every error is dropped with its package
			return nil, &InvalidError{Name: name, Problems: m.Problems}
		}
		_, skip := m.ValidOnly()
		for _, s := range skip {
			prev := skipped[s.Package]
			prev.Package = s.Package
			prev.Problems = append(prev.Problems, s.Problems...)
			skipped[s.Package] = prev
		}
		cfg = withoutPackages(cfg, skipped)
		m = model.Convert(cfg)
	}
	c.Config, c.Model = cfg, m
	for _, s := range skipped {
		c.Skipped = append(c.Skipped, s)
	}
	slices.SortFunc(c.Skipped, func(a, b model.SkippedPackage) int { return cmp.Compare(a.Package, b.Package) })
	return c, nil
}

// packageOf is the package a blob belongs to: its own name for an
// olm.package blob, its package key otherwise ("" for none).
func packageOf(m *declcfg.Meta) string {
	if m.Schema == declcfg.SchemaPackage {
		return m.Name
	}
	return m.Package
}

func olmSchema(s string) bool {
	switch s {
	case declcfg.SchemaPackage, declcfg.SchemaChannel, declcfg.SchemaBundle, declcfg.SchemaDeprecations:
		return true
	}
	return false
}

// withoutPackages returns cfg without the blobs of the skipped packages.
// A skipped "" (errors of blobs that name no package) leaves out the
// olm.* blobs naming none; blobs of other schemas naming no package stay.
func withoutPackages(cfg *declcfg.DeclarativeConfig, skipped map[string]model.SkippedPackage) *declcfg.DeclarativeConfig {
	drop := func(schema, pkg string) bool {
		if _, ok := skipped[pkg]; !ok {
			return false
		}
		return pkg != "" || olmSchema(schema)
	}
	out := &declcfg.DeclarativeConfig{}
	for _, p := range cfg.Packages {
		if !drop(declcfg.SchemaPackage, p.Name) {
			out.Packages = append(out.Packages, p)
		}
	}
	for _, ch := range cfg.Channels {
		if !drop(declcfg.SchemaChannel, ch.Package) {
			out.Channels = append(out.Channels, ch)
		}
	}
	for _, b := range cfg.Bundles {
		if !drop(declcfg.SchemaBundle, b.Package) {
			out.Bundles = append(out.Bundles, b)
		}
	}
	for _, d := range cfg.Deprecations {
		if !drop(declcfg.SchemaDeprecations, d.Package) {
			out.Deprecations = append(out.Deprecations, d)
		}
	}
	for i := range cfg.Others {
		if !drop(cfg.Others[i].Schema, cfg.Others[i].Package) {
			out.Others = append(out.Others, cfg.Others[i])
		}
	}
	for i := range cfg.Metas {
		if !drop(cfg.Metas[i].Schema, packageOf(&cfg.Metas[i])) {
			out.Metas = append(out.Metas, cfg.Metas[i])
		}
	}
	return out
}

// ContentDigest is "sha256:<hex>" of the published blobs as catalogd's
// /api/v1/all serves them (each blob followed by a newline, in load
// order): the identity of the catalog's content, whatever its source.
func (c *Catalog) ContentDigest() string {
	c.digestOnce.Do(func() {
		h := sha256.New()
		nl := []byte{'\n'}
		for i := range c.Config.Metas {
			h.Write(c.Config.Metas[i].Blob)
			h.Write(nl)
		}
		c.digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	})
	return c.digest
}

// Counts summarise a catalog.
type Counts struct {
	Packages int `json:"packages"`
	Channels int `json:"channels"`
	Bundles  int `json:"bundles"`
	// Entries counts channel entries: one per installed bundle file.
	Entries int `json:"entries"`
	// Deprecations counts deprecated packages, channels and bundles.
	Deprecations int `json:"deprecations"`
	Blobs        int `json:"blobs"`
	Warnings     int `json:"warnings"`
	// SkippedPackages counts the packages left out for their errors.
	SkippedPackages int `json:"skippedPackages"`
}

// Counts returns the catalog's counts.
func (c *Catalog) Counts() Counts {
	n := Counts{Packages: len(c.Model.Packages), Blobs: len(c.Config.Metas), SkippedPackages: len(c.Skipped)}
	for _, p := range c.Model.Packages {
		n.Warnings += p.Problems().Count(model.Warning)
		n.Channels += len(p.Channels)
		n.Bundles += len(p.Bundles)
		if p.Deprecation != nil {
			n.Deprecations++
		}
		for _, ch := range p.Channels {
			n.Entries += len(ch.Entries)
			if ch.Deprecation != nil {
				n.Deprecations++
			}
		}
		for _, b := range p.Bundles {
			if b.Deprecation != nil {
				n.Deprecations++
			}
		}
	}
	return n
}

// PackageNames lists the published packages by name.
func (c *Catalog) PackageNames() []string {
	out := make([]string, len(c.Model.Packages))
	for i, p := range c.Model.Packages {
		out[i] = p.Name
	}
	return out
}

// File is one file of a catalog. Path is relative to the tree's root
// (Dir(name) + the path in the catalog).
type File struct {
	Path string
	Data []byte
	// Cuts are where its gzip copy's segments start (catalog/metas
	// Segments), nil for a copy of one stream.
	Cuts []int
	// Blobs are the file's blobs, as indices of Config.Metas in the
	// file's order, when it has Cuts (nil otherwise): which blobs each
	// segment's part holds.
	Blobs []int32
	// SHA256 is the hex SHA-256 of Data when the catalog knows it
	// without hashing Data (all.jsonl's is the content digest's), ""
	// otherwise.
	SHA256 string
	// MetasPackage is P for a metas file made of P's blobs alone
	// (catalog/metas File.Package): its bytes depend on nothing else. ""
	// for every other file.
	MetasPackage string
}

// Render renders every file of the catalog on up to workers goroutines
// (0: GOMAXPROCS) and hands each to emit, with the worker rendering it
// (0 ≤ worker < workers), as soon as it is rendered: nothing is kept
// once emit returns. emit is called concurrently; the bytes of each file
// do not depend on scheduling. The first error stops the rendering and is
// returned.
func (c *Catalog) Render(ctx context.Context, workers int, emit func(ctx context.Context, worker int, f File) error) error {
	return c.RenderExcept(ctx, workers, nil, emit)
}

// RenderExcept is Render without the files of the packages skip reports
// (PackageFiles): every catalog-wide file and every other package's.
// skip nil skips none; it is called concurrently, from the tasks
// rendering each package (so it may wait for what decides it while the
// catalog-wide files are made).
func (c *Catalog) RenderExcept(ctx context.Context, workers int, skip func(pkg string) bool, emit func(ctx context.Context, worker int, f File) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	dir := Dir(c.Name)
	type task func(ctx context.Context, out func(f File) error) error
	// The blobs' files (all.jsonl and metas/…, most of the bytes) are
	// made in one pass over the blobs, then handed out one by one to
	// every worker, largest first, so that hashing and writing them is
	// spread over all: the first worker makes them while the others
	// render the summary and the packages, and each worker, once its
	// other tasks are done, takes the files left.
	var (
		metasOnce sync.Once
		metas     []File
		next      atomic.Int64
	)
	pull := func(ctx context.Context, out func(File) error) error {
		metasOnce.Do(func() {
			metas = metasFiles(c.Config)
			for i := range metas {
				if metas[i].Path == allFile {
					metas[i].SHA256 = strings.TrimPrefix(c.ContentDigest(), "sha256:")
				}
			}
			slices.SortStableFunc(metas, func(a, b File) int { return cmp.Compare(len(b.Data), len(a.Data)) })
		})
		for {
			i := int(next.Add(1)) - 1
			if i >= len(metas) {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := out(metas[i]); err != nil {
				return err
			}
		}
	}
	tasks := []task{
		pull,
		func(ctx context.Context, out func(File) error) error {
			data, err := marshal(c.Summary())
			if err != nil {
				return err
			}
			return out(File{Path: SummaryFile, Data: data})
		},
	}
	v0 := c.v0Set()
	// Whether a package is skipped is asked when its tasks run, not
	// before: skip may wait for what decides it (generator's check of
	// the previous tree), which the blobs' files need not.
	skipped := func(p *model.Package) bool { return skip != nil && skip(p.Name) }
	for _, p := range c.Model.Packages {
		set := c.v1Set(p.Name)
		tasks = append(tasks, func(ctx context.Context, out func(File) error) error {
			if skipped(p) {
				return nil
			}
			data, err := marshal(p.Graph())
			if err != nil {
				return err
			}
			return out(File{Path: PackageGraphPath(p.Name), Data: data})
		})
		for _, ch := range p.Channels {
			tasks = append(tasks, func(ctx context.Context, out func(File) error) error {
				if skipped(p) {
					return nil
				}
				data, err := marshal(ch.Graph())
				if err != nil {
					return err
				}
				if err := out(File{Path: ChannelGraphPath(p.Name, ch.Name), Data: data}); err != nil {
					return err
				}
				paths := ch.V0Paths() // each hop's pick once, not once per path through it
				for _, e := range ch.Entries {
					if err := ctx.Err(); err != nil {
						return err
					}
					v := e.BoundedViewInSets(set, v0, c.Name, paths)
					data, err := marshal(v)
					if err != nil {
						return err
					}
					if err := out(File{Path: NextPath(p.Name, ch.Name, e.Name), Data: data}); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	for range workers - 1 {
		tasks = append(tasks, pull)
	}
	return parallel.Run(ctx, workers, len(tasks), func(ctx context.Context, w, i int) error {
		return tasks[i](ctx, func(f File) error {
			if err := checkPath(f.Path); err != nil {
				return fmt.Errorf("catalog %s: %w", c.Name, err)
			}
			f.Path = dir + f.Path
			return emit(ctx, w, f)
		})
	})
}

// PackageFiles lists the files Render writes for package p of the
// catalog (paths relative to the tree's root): its graph, its channels'
// graphs and their per installed bundle files.
func (c *Catalog) PackageFiles(p *model.Package) []string {
	dir := Dir(c.Name)
	out := []string{dir + PackageGraphPath(p.Name)}
	for _, ch := range p.Channels {
		out = append(out, dir+ChannelGraphPath(p.Name, ch.Name))
		for _, e := range ch.Entries {
			out = append(out, dir+NextPath(p.Name, ch.Name, e.Name))
		}
	}
	return out
}

// v1Set is the catalog set as OLM v1 walks it for package pkg: this
// catalog and its peers, by name (catalogd lists ClusterCatalogs by
// name; the answer does not depend on the order), each with its package
// pkg or nil.
func (c *Catalog) v1Set(pkg string) []model.V1CatalogMember {
	if len(c.Peers) == 0 {
		return nil
	}
	all := append([]*Catalog{c}, c.Peers...)
	slices.SortFunc(all, func(a, b *Catalog) int { return cmp.Compare(a.Name, b.Name) })
	set := make([]model.V1CatalogMember, 0, len(all))
	for _, cat := range all {
		set = append(set, model.V1CatalogMember{Name: cat.Name, Priority: cat.Priority, Package: cat.Model.Package(pkg)})
	}
	return set
}

// checkPath refuses a file name longer than file systems take.
func checkPath(rel string) error {
	for seg := range strings.SplitSeq(rel, "/") {
		if len(seg) > MaxSegment {
			return fmt.Errorf("file %s: a path segment of %d bytes (a name of a package, channel or bundle too long to be a file name; at most %d bytes once encoded)", rel, len(seg), MaxSegment)
		}
	}
	return nil
}

// marshal encodes v compactly, as the tree's other JSON files are: the
// order of struct fields, no HTML escaping, no trailing newline.
func marshal(v any) ([]byte, error) {
	b, err := jsonw.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b[:len(b)-1], nil
}
