// Package version implements the SemVer semantics Cincinnati relies on
// (spec §1.4): strict parsing, equality and ordering that ignore build
// metadata, and "set the build" as a whole-replacement of build identifiers.
//
// It wraps Masterminds/semver so the rest of the pipeline never has to
// remember which comparisons ignore the build and which do not.
package version

import (
	"fmt"
	"github.com/upgraph/upgraph/internal/clip"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Version is a parsed, immutable SemVer 2.0 version. The zero value is not
// valid; use Parse.
type Version struct {
	v *semver.Version
	s string // canonical display form, cached because it is the graph's node identity
}

// Parse parses s strictly (MAJOR.MINOR.PATCH[-PRE][+BUILD], no "v" prefix).
// Surrounding white space is ignored, as upstream's parser trims it.
func Parse(s string) (Version, error) {
	t := strings.TrimSpace(s)
	v, err := semver.StrictNewVersion(t)
	if err != nil {
		return Version{}, fmt.Errorf("%s is not a valid semver: %w", clip.Quote(s), err)
	}
	// A strictly parsed version admits no alternative spelling (no leading
	// zeros, no "v"), so the input is already the display form; formatting
	// it again costs an fmt call per version.
	return Version{v: v, s: t}, nil
}

// MustParse is Parse for literals in tests and tables.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// IsZero reports whether v was never parsed.
func (v Version) IsZero() bool { return v.v == nil }

// String is the display form: M.m.p[-pre][+build].
func (v Version) String() string { return v.s }

// Major, Minor and Patch return the numeric components.
func (v Version) Major() uint64 { return v.v.Major() }
func (v Version) Minor() uint64 { return v.v.Minor() }
func (v Version) Patch() uint64 { return v.v.Patch() }

// Pre returns the pre-release identifiers joined by ".", or "".
func (v Version) Pre() string { return v.v.Prerelease() }

// Build returns the build identifiers joined by ".", or "".
func (v Version) Build() string { return v.v.Metadata() }

// WithBuild returns v with all build identifiers replaced by build (which
// may itself hold several dot-separated identifiers, or be empty to drop
// the build).
func (v Version) WithBuild(build string) Version {
	nv := semver.New(v.v.Major(), v.v.Minor(), v.v.Patch(), v.v.Prerelease(), build)
	return Version{v: nv, s: v.StringWithBuild(build)}
}

// StringWithBuild is WithBuild(build).String() without building a Version.
func (v Version) StringWithBuild(build string) string {
	if build == "" {
		return v.Key()
	}
	return v.Key() + "+" + build
}

// WithoutBuildIdentifier drops every build identifier equal to id, keeping
// the others in order. This is how the arch filter strips "+amd64".
func (v Version) WithoutBuildIdentifier(id string) Version {
	b := v.Build()
	if b == "" {
		return v
	}
	parts := strings.Split(b, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p != id {
			kept = append(kept, p)
		}
	}
	if len(kept) == len(parts) {
		return v
	}
	return v.WithBuild(strings.Join(kept, "."))
}

// Compare orders by SemVer precedence, ignoring build metadata.
func Compare(a, b Version) int { return a.v.Compare(b.v) }

// Equal is Cincinnati's "version-equal": build metadata is ignored,
// pre-release is significant.
func Equal(a, b Version) bool { return a.v.Compare(b.v) == 0 }

// Less orders by precedence and then by display string, a total order that
// keeps output deterministic when versions differ only in build.
func Less(a, b Version) bool {
	if c := Compare(a, b); c != 0 {
		return c < 0
	}
	return a.s < b.s
}

// Key is the version without build metadata; versions with the same Key
// are version-equal. It is meant for map keys.
func (v Version) Key() string {
	if i := strings.IndexByte(v.s, '+'); i >= 0 {
		return v.s[:i]
	}
	return v.s
}
