package publish

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/generator/manifest"
)

// ErrShrink is returned (wrapped, with the numbers) when the tree to publish
// drops more of the published releases or channels than the threshold
// allows, or drops an architecture: the usual sign of a broken input (an
// empty registry scrape, a truncated graph-data checkout) rather than a
// real change, and publishing it would strand clusters.
var ErrShrink = errors.New("the new tree is much smaller than the published one")

// DefaultShrinkThreshold is the fraction of published releases or channels
// a new tree may drop without Force.
const DefaultShrinkThreshold = 0.10

// checkShrink compares the tree to publish with the published manifest.
func checkShrink(published, next *manifest.Manifest, threshold float64) error {
	var problems []string
	if old, cur := published.Counts.Releases, next.Counts.Releases; old > 0 && float64(old-cur) > threshold*float64(old) {
		problems = append(problems, fmt.Sprintf("releases %d → %d (%s fewer)", old, cur, percent(old-cur, old)))
	}
	if dropped := missing(published.Channels, next.Channels); float64(len(dropped)) > threshold*float64(len(published.Channels)) {
		problems = append(problems, fmt.Sprintf("channels %d → %d, %d dropped (%s): %s", len(published.Channels), len(next.Channels),
			len(dropped), percent(len(dropped), len(published.Channels)), strings.Join(dropped, ", ")))
	}
	if dropped := missing(published.Arches, next.Arches); len(dropped) > 0 {
		problems = append(problems, fmt.Sprintf("architectures dropped: %s (published: %s)",
			strings.Join(dropped, ", "), strings.Join(published.Arches, ", ")))
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; the threshold is %s of releases or channels, and no architecture may go",
		ErrShrink, strings.Join(problems, "; "), percentF(threshold))
}

// missing lists the elements of old that are not in cur.
func missing(old, cur []string) []string {
	var out []string
	for _, s := range old {
		if !slices.Contains(cur, s) {
			out = append(out, s)
		}
	}
	return out
}

func percent(n, of int) string { return percentF(float64(n) / float64(of)) }

func percentF(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", 100*f), ".0") + "%" }
