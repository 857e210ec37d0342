package views

import (
	"cmp"
	"slices"

	"github.com/upgraph/upgraph/catalog/model"
)

// Summary is catalog.json: what a catalog was read from, its packages
// with their default channel, channels, heads and deprecations, where
// their files are, and counts. Paths are relative to the catalog's
// directory.
type Summary struct {
	Name   string `json:"name"`
	Source Source `json:"source"`
	// Priority is the catalog's priority in its set (ClusterCatalog and
	// CatalogSource spec.priority; 0 by default).
	Priority int32 `json:"priority"`
	// ContentDigest is the identity of the published blobs
	// (Catalog.ContentDigest): the sha256 of all.jsonl.
	ContentDigest string           `json:"contentDigest"`
	Counts        Counts           `json:"counts"`
	Packages      []PackageSummary `json:"packages"`
	// Skipped are the packages left out for their errors (generate
	// --catalog-valid-only), each with the problems that fail it.
	Skipped []model.SkippedPackage `json:"skipped"`
}

// Source is what a catalog was read from (source.Info without what
// depends on the run, such as whether a cache answered).
type Source struct {
	// Kind is dir, file or image.
	Kind string `json:"kind"`
	// Reference is the path or image reference as given.
	Reference string `json:"reference"`
	// Resolved is repository@digest of what the image reference named
	// (an index or a manifest).
	Resolved string `json:"resolved,omitempty"`
	// IndexDigest and Platforms describe the index the reference named,
	// when it named one.
	IndexDigest string   `json:"indexDigest,omitempty"`
	Platforms   []string `json:"platforms,omitempty"`
	// Digest is the manifest digest of the image read, Platform its
	// platform (the one chosen from an index).
	Digest   string `json:"digest,omitempty"`
	Platform string `json:"platform,omitempty"`
	// ConfigsDir is the directory the image's configs label names.
	ConfigsDir string `json:"configsDir,omitempty"`
}

// PackageSummary is a package of catalog.json.
type PackageSummary struct {
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel"`
	// Deprecated is the package's deprecation message (olm.deprecations).
	Deprecated string `json:"deprecated,omitempty"`
	// Graph is the package's cross-channel view.
	Graph    string           `json:"graph"`
	Bundles  int              `json:"bundles"`
	Channels []ChannelSummary `json:"channels"`
	// DeclaresDependencies says a bundle of the package declares an OLM
	// v0 dependency (olm.gvk.required, olm.package.required,
	// olm.label.required, olm.constraint), which OLM v0 resolves over the
	// catalog set: what `upgraph diff` re-reads when another package or
	// catalog changes.
	DeclaresDependencies bool `json:"declaresDependencies,omitempty"`
	// DeprecatedBundles are the package's deprecated bundles, by name.
	DeprecatedBundles []DeprecatedBundle `json:"deprecatedBundles"`
	// Warnings are the package's warnings (upgraph validate --catalog
	// gives each with its file and line), by channel, bundle, rule and
	// message.
	Warnings []Warning `json:"warnings"`
}

// ChannelSummary is a channel of catalog.json.
type ChannelSummary struct {
	Name string `json:"name"`
	// Head is the channel head (what the console and PackageManifest call
	// currentCSV), HeadVersion its version.
	Head        string `json:"head"`
	HeadVersion string `json:"headVersion"`
	Deprecated  string `json:"deprecated,omitempty"`
	Entries     int    `json:"entries"`
	// Graph is the channel's graph; Next the directory of its per
	// installed bundle files (Next + EncodeName(bundle) + ".json").
	Graph string `json:"graph"`
	Next  string `json:"next"`
}

// DeprecatedBundle is a deprecated bundle and its message.
type DeprecatedBundle struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// Warning is a warning of a published package.
type Warning struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
}

// Summary returns catalog.json's content.
func (c *Catalog) Summary() *Summary {
	s := &Summary{
		Name:     c.Name,
		Priority: c.Priority,
		Source: Source{Kind: string(c.Info.Kind), Reference: c.Info.Reference, Resolved: c.Info.Resolved,
			IndexDigest: c.Info.IndexDigest, Platforms: c.Info.Platforms, Digest: c.Info.Digest,
			Platform: c.Info.Platform, ConfigsDir: c.Info.ConfigsDir},
		ContentDigest: c.ContentDigest(),
		Counts:        c.Counts(),
		Packages:      make([]PackageSummary, 0, len(c.Model.Packages)),
		Skipped:       c.Skipped,
	}
	if s.Skipped == nil {
		s.Skipped = []model.SkippedPackage{}
	}
	for _, p := range c.Model.Packages {
		ps := PackageSummary{Name: p.Name, DefaultChannel: p.DefaultChannelName, Graph: PackageGraphPath(p.Name),
			Bundles: len(p.Bundles), Channels: make([]ChannelSummary, 0, len(p.Channels)),
			DeprecatedBundles: []DeprecatedBundle{}, Warnings: []Warning{}, DeclaresDependencies: p.DeclaresV0Dependencies()}
		if p.Deprecation != nil {
			ps.Deprecated = p.Deprecation.Message
		}
		for _, ch := range p.Channels {
			cs := ChannelSummary{Name: ch.Name, Entries: len(ch.Entries),
				Graph: ChannelGraphPath(p.Name, ch.Name), Next: NextDir(p.Name, ch.Name)}
			if h, err := ch.Head(); err == nil && h != nil {
				cs.Head = h.Name
				if h.Bundle != nil {
					cs.HeadVersion = h.Bundle.PackageProperty.Version
				}
			}
			if ch.Deprecation != nil {
				cs.Deprecated = ch.Deprecation.Message
			}
			ps.Channels = append(ps.Channels, cs)
		}
		for _, b := range p.Bundles {
			if b.Deprecation != nil {
				ps.DeprecatedBundles = append(ps.DeprecatedBundles, DeprecatedBundle{Name: b.Name, Message: b.Deprecation.Message})
			}
		}
		slices.SortFunc(ps.DeprecatedBundles, func(a, b DeprecatedBundle) int { return cmp.Compare(a.Name, b.Name) })
		for _, pr := range p.Problems() {
			if pr.Severity == model.Warning {
				ps.Warnings = append(ps.Warnings, Warning{Rule: pr.Rule, Message: pr.Message, Channel: pr.Channel, Bundle: pr.Bundle})
			}
		}
		// Not by file and line: the same catalog from a single file has
		// other positions.
		slices.SortFunc(ps.Warnings, func(a, b Warning) int {
			return cmp.Or(cmp.Compare(a.Channel, b.Channel), cmp.Compare(a.Bundle, b.Bundle),
				cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
		})
		s.Packages = append(s.Packages, ps)
	}
	return s
}
