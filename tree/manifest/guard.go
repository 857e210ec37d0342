package manifest

import (
	"errors"
	"fmt"
	"strings"
)

// ErrShrink is returned (wrapped, with the numbers) when a new generation
// drops more of the releases, channels or per-version graphs of the one
// it replaces than the threshold allows, or drops an architecture: the
// usual sign of a broken input (an empty registry scrape, a truncated
// graph-data checkout, a mistyped --channel or --arch) rather than a real
// change, and serving it would strand clusters.
var ErrShrink = errors.New("the new generation is much smaller than the one it replaces")

// ErrEmpty is returned (wrapped) for a generation that has no release, no
// channel or no per-version graph at all.
var ErrEmpty = errors.New("the new generation is empty")

// DefaultShrinkThreshold is the fraction of releases, channels or
// per-version graphs a new generation may drop without being forced.
const DefaultShrinkThreshold = 0.10

// CheckShrink compares next with old, the generation it would replace,
// and names everything that would disappear when more than threshold of
// old's releases, channels or per-version graphs, or any of its
// architectures, would; and, for operator catalogs, when any catalog
// would, or more than threshold of a catalog's packages or bundles.
func CheckShrink(old, next *Manifest, threshold float64) error {
	var problems []string
	if o, n := old.Counts.Releases, next.Counts.Releases; o > 0 && float64(o-n) > threshold*float64(o) {
		problems = append(problems, fmt.Sprintf("releases %d → %d (%s fewer)", o, n, percent(o-n, o)))
	}
	if dropped := missing(old.Channels, next.Channels); len(dropped) > 0 && float64(len(dropped)) > threshold*float64(len(old.Channels)) {
		problems = append(problems, fmt.Sprintf("channels %d → %d, %d dropped (%s): %s", len(old.Channels), len(next.Channels),
			len(dropped), percent(len(dropped), len(old.Channels)), listSome(dropped)))
	}
	if dropped := missing(old.Arches, next.Arches); len(dropped) > 0 {
		problems = append(problems, fmt.Sprintf("architectures dropped: %s (had: %s)",
			strings.Join(dropped, ", "), strings.Join(old.Arches, ", ")))
	}
	if o, n := old.Counts.VersionGraphs, next.Counts.VersionGraphs; o > 0 && float64(o-n) > threshold*float64(o) {
		problems = append(problems, fmt.Sprintf("per-version graphs %d → %d (%s fewer)", o, n, percent(o-n, o)))
	}
	catalogProblems := checkCatalogsShrink(old, next, threshold)
	if len(problems) == 0 && len(catalogProblems) == 0 {
		return nil
	}
	if len(catalogProblems) == 0 {
		return fmt.Errorf("%w: %s; the threshold is %s of releases, channels or per-version graphs, and no architecture may go",
			ErrShrink, strings.Join(problems, "; "), percentF(threshold))
	}
	return fmt.Errorf("%w: %s; the threshold is %s of releases, channels, per-version graphs or a catalog's packages or bundles, and no architecture or catalog may go",
		ErrShrink, strings.Join(append(problems, catalogProblems...), "; "), percentF(threshold))
}

// checkCatalogsShrink names the catalogs of old that next drops, and
// those losing more than threshold of their packages or bundles.
func checkCatalogsShrink(old, next *Manifest, threshold float64) []string {
	var problems []string
	byName := make(map[string]*Catalog, len(next.Catalogs))
	for i := range next.Catalogs {
		byName[next.Catalogs[i].Name] = &next.Catalogs[i]
	}
	var gone []string
	for _, oc := range old.Catalogs {
		nc := byName[oc.Name]
		if nc == nil {
			gone = append(gone, fmt.Sprintf("%s (%d packages, %d bundles)", oc.Name, oc.Counts.Packages, oc.Counts.Bundles))
			continue
		}
		if dropped := missing(oc.Packages, nc.Packages); len(dropped) > 0 && float64(len(dropped)) > threshold*float64(len(oc.Packages)) {
			problems = append(problems, fmt.Sprintf("catalog %s: packages %d → %d, %d dropped (%s): %s", oc.Name, len(oc.Packages), len(nc.Packages),
				len(dropped), percent(len(dropped), len(oc.Packages)), listSome(dropped)))
		}
		if o, n := oc.Counts.Bundles, nc.Counts.Bundles; o > 0 && float64(o-n) > threshold*float64(o) {
			problems = append(problems, fmt.Sprintf("catalog %s: bundles %d → %d (%s fewer)", oc.Name, o, n, percent(o-n, o)))
		}
	}
	if len(gone) > 0 {
		problems = append([]string{"catalogs dropped: " + strings.Join(gone, ", ")}, problems...)
	}
	return problems
}

// CheckNotEmpty refuses a generation that would give clusters nothing: no
// release, no channel, or not one per-version graph; or, for a generation
// of operator catalogs without releases, a catalog without a package.
func CheckNotEmpty(m *Manifest) error {
	var what []string
	// A tree of catalogs alone has no release input: its release graphs
	// are not missing, there are none to have.
	if m.Inputs.Releases.Kind != "" || len(m.Catalogs) == 0 {
		if m.Counts.Releases == 0 {
			what = append(what, "no release")
		}
		if len(m.Channels) == 0 {
			what = append(what, "no channel")
		}
		if m.Counts.VersionGraphs == 0 {
			what = append(what, "no per-version graph")
		}
	}
	for _, c := range m.Catalogs {
		if c.Counts.Packages == 0 {
			what = append(what, "no package in catalog "+c.Name)
		}
	}
	if len(what) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrEmpty, strings.Join(what, ", "))
}

// missing lists the elements of old that are not in cur, in old's order,
// looking them up in a set: two generations of n channels cost n, not n².
func missing(old, cur []string) []string {
	in := make(map[string]bool, len(cur))
	for _, s := range cur {
		in[s] = true
	}
	var out []string
	for _, s := range old {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// listSome joins at most ten names, so a message stays readable when
// hundreds of channels go.
func listSome(names []string) string {
	if len(names) <= 10 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
}

func percent(n, of int) string { return percentF(float64(n) / float64(of)) }

func percentF(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", 100*f), ".0") + "%" }
