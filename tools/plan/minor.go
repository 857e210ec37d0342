package plan

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/tree/version"
)

// Minor is an OpenShift major.minor version: what a catalog index is
// tagged with (redhat-operator-index:v4.21) and what
// olm.maxOpenShiftVersion names.
type Minor struct {
	Major, Minor uint64
}

// String is "4.21".
func (m Minor) String() string { return fmt.Sprintf("%d.%d", m.Major, m.Minor) }

// Key is the --catalogs key of the minor: "v4.21".
func (m Minor) Key() string { return "v" + m.String() }

// Compare orders minors by major, then minor.
func (m Minor) Compare(o Minor) int {
	return cmp.Or(cmp.Compare(m.Major, o.Major), cmp.Compare(m.Minor, o.Minor))
}

// Normalize is OLM's normalizeOCPVersion: 4.23 and 5.0 are the same
// release (OLM commit 1bf19cc9, "OPRUN-4519: block upgrades from 4.23 to
// 5.0"), so 4.23 maps to 5.0; any other minor is itself.
func (m Minor) Normalize() Minor {
	if m == (Minor{4, 23}) {
		return Minor{5, 0}
	}
	return m
}

// NextY is OLM's nextY: the same major, the minor plus one. It is not
// normalized: OLM compares with nextY(normalize(current)), so a cluster
// at 4.22 is compared with 4.23, which every normalized
// maxOpenShiftVersion of 4.23 or 5.0 reaches.
func (m Minor) NextY() Minor { return Minor{m.Major, m.Minor + 1} }

// ParseMinor reads "4.21" or "v4.21": two decimal numbers without
// leading zeros.
func ParseMinor(s string) (Minor, error) {
	t := strings.TrimPrefix(s, "v")
	xs, ys, ok := strings.Cut(t, ".")
	x, errX := parseNumber(xs)
	y, errY := parseNumber(ys)
	if !ok || errX != nil || errY != nil {
		return Minor{}, fmt.Errorf("%q is not a major.minor version such as v4.21", s)
	}
	return Minor{x, y}, nil
}

func parseNumber(s string) (uint64, error) {
	if s == "" || (len(s) > 1 && s[0] == '0') || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// MinorOf is the minor of a release version (4.21.3 → 4.21).
func MinorOf(release string) (Minor, error) {
	v, err := version.Parse(release)
	if err != nil {
		return Minor{}, err
	}
	return Minor{v.Major(), v.Minor()}, nil
}

// Blocks is OLM's rule (operator-lifecycle-manager
// pkg/controller/operators/openshift/helpers.go, incompatibleOperators):
// an installed CSV whose olm.maxOpenShiftVersion is max makes OLM report
// Upgradeable=False, blocking every minor or major update of a cluster
// running minor at, when normalize(max) < nextY(normalize(at)). So at
// 4.22, 4.22 blocks and 4.23 and 5.0 do not (4.23 ≡ 5.0); at 5.0, 4.23
// blocks (it is 5.0).
func Blocks(max, at Minor) bool {
	return max.Normalize().Compare(at.Normalize().NextY()) < 0
}

// Allows reports whether an installed CSV whose olm.maxOpenShiftVersion
// is max lets the cluster go from minor from to minor to: OLM's rule
// (Blocks) at from, and, for an update that skips a minor (OLM only
// checks the next one, and the CVO allows no such update but 4.y → 5.0),
// max must reach to as well.
func Allows(max, from, to Minor) bool {
	if Blocks(max, from) {
		return false
	}
	next := from.Normalize().NextY().Normalize()
	if to.Normalize().Compare(next) > 0 && max.Normalize().Compare(to.Normalize()) < 0 {
		return false
	}
	return true
}
