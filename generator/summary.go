package generator

import (
	"fmt"
	"strings"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Summary is the line upgraph generate prints for the generation m written
// to out: its files, then what they hold (the release graphs when releases
// were built, the catalogs, the phased rollouts), "; "-separated.
func Summary(m *manifest.Manifest, releases bool, cats []*catviews.Catalog, out string) string {
	signatures := ""
	if m.Counts.Signatures > 0 {
		signatures = fmt.Sprintf(", %d release signatures", m.Counts.Signatures)
	}
	var what []string
	if releases {
		what = append(what, fmt.Sprintf("%d channel × arch graphs, %d per-version graphs%s", m.Counts.Graphs, m.Counts.VersionGraphs, signatures))
	}
	if len(cats) > 0 {
		what = append(what, CatalogSummary(cats))
	}
	if ro := m.Rollouts; ro != nil {
		what = append(what, RolloutSummary(ro))
	}
	return fmt.Sprintf("wrote %d files (%s) to %s\n", m.Counts.Files, strings.Join(what, "; "), out)
}

// RolloutSummary is generate's line about the rollouts.
func RolloutSummary(ro *manifest.Rollouts) string {
	next := "no further change"
	if ro.NextChange != "" {
		next = "next change " + ro.NextChange
	}
	return fmt.Sprintf("%d rollouts over %d buckets at %s: %d graph files shared, %d per-bucket copies (%d distinct), %s",
		len(ro.Releases), ro.Buckets, ro.At, ro.SharedFiles, ro.VariantFiles, ro.DistinctVariants, next)
}
