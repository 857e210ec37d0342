package model

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/blang/semver/v4"
)

// A skipRange is parsed by blang's semver.ParseRange into a closure,
// which can only be asked one version at a time: matching it against
// every entry of a channel, for every entry with a skipRange, is n²
// checks. rangeSet reads the same string into what the closure computes
// — branches ("||") each the intersection of its comparators (blanks),
// each comparator a comparison with one version by Version.Compare — so
// the versions a range holds are, in semver order, a union of intervals
// minus points, and the entries of a list sorted by version that it
// holds are found by binary search (rangeSet.spans).
//
// The reading follows blang/semver v4.0.0 range.go (ParseRange,
// splitAndTrim = splitRangeTokens, splitORParts, expandWildcardVersion,
// createVersionFromWildcard, incrementMajorVersion/incrementMinorVersion,
// splitComparatorVersion, parseComparator), quirks included: only a
// lowercase "x" is a wildcard, "<=1.x.x" becomes "<1.1.0", an unknown
// operator before a wildcard version becomes equality. Versions are
// parsed by blang itself. TestRangeSetMatchesBlang and
// FuzzSkipRangeSpans hold it to the closure: same error or not, same
// versions held.

// rangeBranch is one "||" branch: the versions between lo and hi (nil:
// unbounded; incl: the bound itself is held) other than those in not.
type rangeBranch struct {
	lo, hi         *semver.Version
	loIncl, hiIncl bool
	not            []semver.Version
}

// rangeSet is a parsed skipRange: the union of its branches.
type rangeSet []rangeBranch

// errRangeEmptyBranch: blang's ParseRange accepts "A || || B" but its
// Range then calls a nil branch, a nil-pointer panic for every version
// A does not hold.
var errRangeEmptyBranch = errors.New(`an empty branch between two "||" (blang's ParseRange accepts it, but its Range panics on every version the branches before it do not hold)`)

// parseRangeSet reads a skipRange as blang's ParseRange does; it fails
// where ParseRange fails, and on an empty branch (errRangeEmptyBranch).
func parseRangeSet(s string) (rangeSet, error) {
	tokens := splitRangeTokens(s)
	if len(tokens) == 0 || tokens[len(tokens)-1] == "||" {
		return nil, fmt.Errorf("range %q: no comparator after the last \"||\"", s)
	}
	if tokens[0] == "||" {
		return nil, fmt.Errorf("range %q: starts with \"||\"", s)
	}
	branches := splitRangeOR(tokens)
	// ParseRange expands every wildcard before it parses any comparator;
	// either step failing fails the whole range, so the order of the
	// checks here does not matter.
	var out rangeSet
	empty := false
	for _, b := range branches {
		if len(b) == 0 {
			empty = true
			continue
		}
		var comps []string
		for _, tok := range b {
			exp, err := expandRangeWildcard(tok)
			if err != nil {
				return nil, fmt.Errorf("range %q: %w", s, err)
			}
			comps = append(comps, exp...)
		}
		var br rangeBranch
		for _, c := range comps {
			if err := br.add(c); err != nil {
				return nil, fmt.Errorf("range %q: %w", s, err)
			}
		}
		out = append(out, br)
	}
	if empty {
		return nil, errRangeEmptyBranch
	}
	return out, nil
}

// splitRangeComparator is blang's splitComparatorVersion: the operator
// is what comes before the first digit (any Unicode digit), trimmed.
func splitRangeComparator(tok string) (op, version string, err error) {
	i := strings.IndexFunc(tok, unicode.IsDigit)
	if i < 0 {
		return "", "", fmt.Errorf("no version in %q", tok)
	}
	return strings.TrimSpace(tok[:i]), tok[i:], nil
}

// expandRangeWildcard rewrites a comparator holding an "x" (anywhere:
// "1.0.0-xyz" too) as blang's expandWildcardVersion does, into one or two
// comparators; others are returned as they are. A wildcard version that
// has to be raised but cannot be (not of the form N.x or N.N.x) becomes
// an operator without a version, which the parse then refuses, as
// blang's does.
func expandRangeWildcard(tok string) ([]string, error) {
	if !strings.Contains(tok, "x") {
		return []string{tok}, nil
	}
	op, v, err := splitRangeComparator(tok)
	if err != nil {
		return nil, err
	}
	parts := strings.Split(v, ".")
	wildMinor, wildPatch := false, false // the last part is "x": N.x or N.N.x
	if parts[len(parts)-1] == "x" {
		wildMinor, wildPatch = len(parts) == 2, len(parts) == 3
	}
	flat := strings.Replace(v, ".x.x", ".x", 1)
	flat = strings.Replace(flat, ".x", ".0", 1)
	if strings.Count(flat, ".") == 1 {
		flat += ".0"
	}
	raised := func() string {
		switch {
		case wildPatch:
			return bumpVersionPart(flat, 1)
		case wildMinor:
			return bumpVersionPart(flat, 0)
		}
		return ""
	}
	switch op {
	case ">":
		return []string{">=" + raised()}, nil
	case ">=":
		return []string{">=" + flat}, nil
	case "<":
		return []string{"<" + flat}, nil
	case "<=":
		return []string{"<" + raised()}, nil
	case "", "=", "==":
		return []string{">=" + flat, "<" + raised()}, nil
	case "!=", "!":
		return []string{"<" + flat, ">=" + raised()}, nil
	}
	return []string{flat}, nil // no operator left: equality
}

// bumpVersionPart adds one to the i-th dot-separated part of v (as
// strconv.Atoi reads it, with Go's int overflow), "" when that part is
// not a number.
func bumpVersionPart(v string, i int) string {
	parts := strings.Split(v, ".")
	if i >= len(parts) {
		return ""
	}
	n, err := strconv.Atoi(parts[i])
	if err != nil {
		return ""
	}
	parts[i] = strconv.Itoa(n + 1)
	return strings.Join(parts, ".")
}

// add intersects the branch with one comparator (blang's
// splitComparatorVersion, parseComparator and buildVersionRange).
func (b *rangeBranch) add(comp string) error {
	op, vs, err := splitRangeComparator(comp)
	if err != nil {
		return err
	}
	v, err := semver.Parse(vs)
	if err != nil {
		return fmt.Errorf("version %q in %q: %w", vs, comp, err)
	}
	lower := func(incl bool) {
		if b.lo == nil || v.Compare(*b.lo) > 0 || (v.Compare(*b.lo) == 0 && !incl) {
			b.lo, b.loIncl = &v, incl
		}
	}
	upper := func(incl bool) {
		if b.hi == nil || v.Compare(*b.hi) < 0 || (v.Compare(*b.hi) == 0 && !incl) {
			b.hi, b.hiIncl = &v, incl
		}
	}
	switch op {
	case "", "=", "==":
		lower(true)
		upper(true)
	case ">":
		lower(false)
	case ">=":
		lower(true)
	case "<":
		upper(false)
	case "<=":
		upper(true)
	case "!", "!=":
		b.not = append(b.not, v)
	default:
		return fmt.Errorf("comparator %q in %q", op, comp)
	}
	return nil
}

// belowHi says v is not above the branch's upper bound.
func (b *rangeBranch) belowHi(v semver.Version) bool {
	if b.hi == nil {
		return true
	}
	c := v.Compare(*b.hi)
	return c < 0 || c == 0 && b.hiIncl
}

// aboveLo says v is not below the branch's lower bound.
func (b *rangeBranch) aboveLo(v semver.Version) bool {
	if b.lo == nil {
		return true
	}
	c := v.Compare(*b.lo)
	return c > 0 || c == 0 && b.loIncl
}

// holds says whether the range holds v (what blang's Range answers).
func (r rangeSet) holds(v semver.Version) bool {
	for i := range r {
		b := &r[i]
		if b.aboveLo(v) && b.belowHi(v) && !slices.ContainsFunc(b.not, func(n semver.Version) bool { return v.Compare(n) == 0 }) {
			return true
		}
	}
	return false
}

// spans returns the indexes of versions (newest first: versions[i]
// .Compare(versions[i+1]) ≥ 0) the range holds, as spans, ascending, each
// maximal: what spans(len(versions), holds) returns, in O(k log n + k log
// k) for k comparators instead of n range checks.
func (r rangeSet) spans(versions []semver.Version) []Span {
	n := len(versions)
	// first returns the first index at or after which f holds (f is
	// false then true along versions).
	first := func(f func(v semver.Version) bool) int {
		return sort.Search(n, func(i int) bool { return f(versions[i]) })
	}
	var all []Span
	for i := range r {
		b := &r[i]
		lo := first(b.belowHi)
		hi := first(func(v semver.Version) bool { return !b.aboveLo(v) }) // exclusive
		if lo >= hi {
			continue
		}
		// The runs of versions equal to a "!=" version, cut out.
		var cuts []Span
		for _, p := range b.not {
			a := first(func(v semver.Version) bool { return v.Compare(p) <= 0 })
			z := first(func(v semver.Version) bool { return v.Compare(p) < 0 })
			if a < z {
				cuts = append(cuts, Span{a, z - 1})
			}
		}
		slices.SortFunc(cuts, func(x, y Span) int { return x[0] - y[0] })
		at := lo
		for _, c := range cuts {
			if c[0] > at && at < hi {
				all = append(all, Span{at, min(c[0], hi) - 1})
			}
			at = max(at, c[1]+1)
		}
		if at < hi {
			all = append(all, Span{at, hi - 1})
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(x, y Span) int { return x[0] - y[0] })
	out := all[:1]
	for _, s := range all[1:] {
		last := &out[len(out)-1]
		if s[0] <= last[1]+1 {
			last[1] = max(last[1], s[1])
			continue
		}
		out = append(out, s)
	}
	return out
}

// rangeSpans returns the indexes of versions (newest first, see
// versionPrefix) that the skipRange s, parsed by blang into r, holds. The
// spans are found by binary search on the range's rangeSet; a range
// rangeSet cannot read (none known: FuzzSkipRangeSpans holds parseRangeSet
// to ParseRange, error for error) is matched version by version with the
// closure: len(versions) checks for that range only, so a channel pays n
// checks per such range, not per entry.
func rangeSpans(s string, r semver.Range, versions []semver.Version) []Span {
	if set, err := parseRangeSet(s); err == nil {
		return set.spans(versions)
	}
	return spans(len(versions), func(i int) bool { return r(versions[i]) })
}

// versionPrefix returns the versions of the first nodes that have a
// usable one (version(i) ok), in order, and whether they are newest
// first (each Compare ≥ the next); the nodes after them must have none.
func versionPrefix(n int, version func(i int) (semver.Version, bool)) ([]semver.Version, bool) {
	var out []semver.Version
	for i := 0; i < n; i++ {
		v, ok := version(i)
		if !ok {
			for j := i + 1; j < n; j++ {
				if _, ok := version(j); ok {
					return out, false
				}
			}
			break
		}
		if len(out) > 0 && out[len(out)-1].Compare(v) < 0 {
			return out, false
		}
		out = append(out, v)
	}
	return out, true
}
