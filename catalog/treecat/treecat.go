// Package treecat reads an operator catalog back from a generated tree
// (operators/<catalog>/, docs/operators.md): its summary and the blobs of
// the packages asked for, from the catalogd-compatible files, each
// verified against index.json by the tree package. The blobs are the
// catalog's own, byte for byte as catalogd serves them, so converting
// them (catalog/model) gives the model generate published.
package treecat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/tree"
)

// Summary reads the catalog's catalog.json, after checking index.json
// lists the catalog.
func Summary(ctx context.Context, t tree.Tree, name string) (*views.Summary, error) {
	var names []string
	found := false
	for _, c := range t.Manifest().Catalogs {
		names = append(names, c.Name)
		found = found || c.Name == name
	}
	if !found {
		if len(names) == 0 {
			return nil, fmt.Errorf("%s has no catalog (generate --catalog writes them)", t)
		}
		return nil, fmt.Errorf("%s has no catalog %q (it has %s)", t, name, strings.Join(names, ", "))
	}
	path := views.Dir(name) + views.SummaryFile
	data, err := t.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	var sum views.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		return nil, fmt.Errorf("%s of %s: %w", path, t, err)
	}
	return &sum, nil
}

// Read returns the blobs of packages pkgs of catalog name of t (every
// blob of the catalog, all.jsonl, when pkgs is empty), and the catalog's
// summary. A package's blobs are its olm.package blob
// (metas/schema/olm.package/P.jsonl) and every blob whose package is P
// (metas/package/P.jsonl), in catalog order within each file. A package
// the catalog does not publish is an error naming those it does.
func Read(ctx context.Context, t tree.Tree, name string, pkgs []string) (*declcfg.DeclarativeConfig, *views.Summary, error) {
	sum, err := Summary(ctx, t, name)
	if err != nil {
		return nil, nil, err
	}
	dir := views.Dir(name)
	var files []string
	if len(pkgs) == 0 {
		files = []string{metas.AllFile}
	}
	known := map[string]bool{}
	for _, p := range sum.Packages {
		known[p.Name] = true
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		if seen[p] {
			continue
		}
		seen[p] = true
		if !known[p] {
			have := make([]string, 0, len(sum.Packages))
			for _, sp := range sum.Packages {
				have = append(have, sp.Name)
			}
			if len(have) > 20 {
				have = append(have[:20], "…")
			}
			return nil, nil, fmt.Errorf("catalog %s of %s has no package %q (it has %s)", name, t, p, strings.Join(have, ", "))
		}
		files = append(files, metas.SchemaNameFile(declcfg.SchemaPackage, p), metas.PackageFile(p))
	}
	out := &declcfg.DeclarativeConfig{}
	for _, f := range files {
		data, err := t.ReadFile(ctx, dir+f)
		if err != nil {
			return nil, nil, err
		}
		cfg, err := declcfg.LoadReader(ctx, bytes.NewReader(data), dir+f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", t, err)
		}
		merge(out, cfg)
	}
	return out, sum, nil
}

func merge(dst, src *declcfg.DeclarativeConfig) {
	dst.Packages = append(dst.Packages, src.Packages...)
	dst.Channels = append(dst.Channels, src.Channels...)
	dst.Bundles = append(dst.Bundles, src.Bundles...)
	dst.Deprecations = append(dst.Deprecations, src.Deprecations...)
	dst.Others = append(dst.Others, src.Others...)
	dst.Metas = append(dst.Metas, src.Metas...)
}
