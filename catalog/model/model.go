// Package model holds the semantics of a file-based catalog (FBC): the
// packages, channels and bundles of a declcfg.DeclarativeConfig as
// operator-registry's alpha/model sees them, its validation (opm
// validate's verdict, every problem reported instead of the first, each
// tied to the file and line of its blob), the warnings upstream lacks, the
// per channel graphs `opm alpha render-graph` draws, and the upgrade
// choices of the two OLM runtimes: OLM v0 (a Subscription, operator-
// lifecycle-manager's resolver) and OLM v1 (a ClusterExtension,
// operator-controller's resolver). Every selection result says which
// semantics it encodes: ResolveV0 and OLM v1 are graph only (OLM v1
// refuses dependencies as upstream does); V0Set resolves OLM v0's
// dependencies over a catalog set as its resolver does (olmv0deps.go).
//
// A Catalog is read-only once Convert returns and safe for concurrent
// use.
//
// Where this model knowingly differs from upstream tools:
//   - Convert reports every problem; opm stops at the first. The verdict
//     (any Error) is opm's. An entry without an olm.bundle is reported for
//     every channel (opm's own check only looks at the last channel of
//     each package, and its Validate then fails the empty bundle).
//   - render-graph looks bundle versions up by name across the whole
//     catalog (first wins) and fails on any unparsable version; channel
//     graphs here use the package's own bundles and leave out bundles
//     without a strict version. Duplicate edges (a name listed twice in
//     skips) are drawn once.
//   - render-graph's red "skipped" marking depends on the order it draws
//     entries in; SkippedByV0 is the resolver's rule (skipped by an entry
//     of the channel, or off the chain from the head).
//
// The contract is spec/olm-behaviour.md (§1.2–§1.6, §8). Upstream code
// was read at operator-registry 4f9d6f2, operator-lifecycle-manager
// 992bb09 and operator-controller df2c201.
package model

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Catalog is a converted catalog: its packages sorted by name, and every
// problem found converting and validating it (sorted by file and line).
// Convert always returns one, however broken the input: what could not be
// placed (a channel of an unknown package, a duplicate blob) is left out
// and reported.
type Catalog struct {
	Packages []*Package
	Problems Problems

	byName map[string]*Package
}

// Package returns the named package, or nil.
func (c *Catalog) Package(name string) *Package { return c.byName[name] }

// Valid reports whether no problem is an error (opm validate would accept
// the catalog).
func (c *Catalog) Valid() bool { return c.Problems.Count(Error) == 0 }

// Deprecation is an olm.deprecations entry's message.
type Deprecation struct {
	Message string `json:"message"`
}

// Package is an olm.package blob with its channels and bundles.
type Package struct {
	Name               string
	DefaultChannelName string
	// DefaultChannel is the channel DefaultChannelName names, nil when it
	// names none.
	DefaultChannel *Channel
	Description    string
	Icon           *declcfg.Icon
	Properties     []declcfg.Property
	// Channels are sorted by name.
	Channels []*Channel
	// Bundles are in load order (the order OLM v1's stable sort keeps for
	// ties); SortedBundles orders them by version.
	Bundles     []*Bundle
	Deprecation *Deprecation
	// DeprecationPos is where the package's olm.deprecations blob is.
	DeprecationPos declcfg.Position
	Pos            declcfg.Position

	channelByName map[string]*Channel
	bundleByName  map[string]*Bundle
	// v1 is the index of OLM v1 successors (olmv1index.go).
	v1 v1Lazy
	// problems are the package's own problems (those whose Package is
	// this package's name), set by Convert.
	problems Problems
}

// Channel returns the named channel, or nil.
func (p *Package) Channel(name string) *Channel { return p.channelByName[name] }

// Bundle returns the named bundle, or nil.
func (p *Package) Bundle(name string) *Bundle { return p.bundleByName[name] }

// Problems are the problems attributed to the package.
func (p *Package) Problems() Problems { return p.problems }

// Valid reports whether the package has no error.
func (p *Package) Valid() bool { return p.problems.Count(Error) == 0 }

// Channel is an olm.channel blob.
type Channel struct {
	Package *Package
	Name    string
	// Entries are in the blob's order, duplicates dropped.
	Entries     []*Entry
	Deprecation *Deprecation
	Properties  []declcfg.Property
	Pos         declcfg.Position

	entryByName map[string]*Entry
	head        *Entry
	headErr     error
	// v0Chain is SortChannelV0 of the entries (v0Err its error).
	v0Chain []*Entry
	v0Err   error
	// v0Index locates in v0Chain the entries that may have an edge from
	// an installed bundle (V0Candidates, the v0Stuck lint), built on
	// first use, which comes after checkChannel has set v0Chain.
	v0Index struct {
		once  sync.Once
		index *v0EdgeIndex
	}
}

// V0Chain is OLM v0's order of the channel (SortChannelV0): head first
// along replaces, skipped entries and entries off the chain dropped.
func (c *Channel) V0Chain() ([]*Entry, error) { return c.v0Chain, c.v0Err }

// Entry returns the entry of the named bundle, or nil.
func (c *Channel) Entry(name string) *Entry { return c.entryByName[name] }

// Entry is a channel entry: a bundle's membership of a channel with the
// edges it declares there (operator-registry's model keeps these on a
// per channel copy of the bundle).
type Entry struct {
	Channel   *Channel
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
	// Range is SkipRange parsed with blang's ParseRange; nil when
	// SkipRange is empty or does not parse (RangeErr).
	Range    semver.Range
	RangeErr error
	// Bundle is the olm.bundle the entry names, nil when there is none.
	Bundle *Bundle
	// SkippedBy is the first entry of the channel whose skips name this
	// one ("" when none): OLM v0 leaves it out of the channel.
	SkippedBy string
	// OnV0Chain says the entry is in the channel's V0Chain.
	OnV0Chain bool
}

// Bundle is an olm.bundle blob.
type Bundle struct {
	Package       *Package
	Name          string
	Image         string
	Properties    []declcfg.Property
	RelatedImages []declcfg.RelatedImage
	// PackageProperty is the value of the bundle's olm.package property
	// (the first, when there are several).
	PackageProperty PackageProperty
	// VersionOK says Version is PackageProperty.Version parsed strictly
	// (blang semver.Parse, as opm does).
	Version   semver.Version
	VersionOK bool
	// Release is PackageProperty.Release parsed with NewRelease (nil when
	// empty or invalid).
	Release Release
	// MaxOpenShiftVersion is the olm.maxOpenShiftVersion property as OLM
	// reads it (major.minor), "" when absent or invalid.
	MaxOpenShiftVersion string
	// HasObjects says the bundle carries olm.bundle.object properties
	// (its content is inline: no image needed).
	HasObjects bool
	// Prohibited says the bundle has the legacy olm.deprecated property:
	// OLM v0's resolver gives its variable a Prohibited constraint
	// (operator-lifecycle-manager pkg/controller/registry/resolver/
	// variable_types.go NewBundleVariableFromOperator), so it is never
	// installed, not even by startingCSV. OLM v1 ignores the property.
	Prohibited  bool
	Deprecation *Deprecation
	// Entries are the bundle's channel entries, in channel name order.
	Entries []*Entry
	Pos     declcfg.Position

	// legacyVR is OLM v1's registry+v1 reading of the version (set by
	// Convert when legacyOK).
	legacyVR    VersionRelease
	legacyErr   error
	legacyReady bool
	// v0deps are V0Dependencies, parsed once (olmv0deps.go).
	v0deps v0DepsCache
}

// PackageProperty is the value of an olm.package property.
type PackageProperty struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitzero"`

	// releaseSet says the value has a release key (OLM v1 with
	// BundleReleaseSupport reads an explicit release, even "").
	releaseSet bool
}

// VersionRelease is the bundle's version and release.
func (b *Bundle) VersionRelease() VersionRelease {
	return VersionRelease{Version: b.Version, Release: b.Release}
}

// VersionString is operator-registry's Bundle.VersionString: the version,
// then "-" and the release when there is one. Package-wide uniqueness is
// checked on it.
func (b *Bundle) VersionString() string {
	if len(b.Release) == 0 {
		return b.Version.String()
	}
	return b.Version.String() + "-" + b.Release.String()
}

// Compare orders bundles as operator-registry's Bundle.Compare does: by
// version, then by release, a release above none. Bundles of the same
// name compare equal.
func (b *Bundle) Compare(o *Bundle) int {
	if b.Name == o.Name {
		return 0
	}
	if c := b.Version.Compare(o.Version); c != 0 {
		return c
	}
	return b.Release.Compare(o.Release)
}

// Release is operator-registry's model.Release: dot-separated identifiers
// following semver's pre-release rules. Nil is "no release".
type Release []semver.PRVersion

const releaseMaxLength = 20

// NewRelease parses a release as model.NewRelease does: "" is no release;
// at most 20 characters; each dot-separated segment a valid semver
// pre-release identifier.
func NewRelease(s string) (Release, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > releaseMaxLength {
		return nil, fmt.Errorf("invalid release %q: exceeds maximum length of %d characters", s, releaseMaxLength)
	}
	segments := strings.Split(s, ".")
	r := make(Release, 0, len(segments))
	var errs []error
	for i, seg := range segments {
		pr, err := semver.NewPRVersion(seg)
		if err != nil {
			errs = append(errs, fmt.Errorf("segment %d: %v", i, err))
			continue
		}
		r = append(r, pr)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid release %q: %v", s, err)
	}
	return r, nil
}

// String is the release's text, "" for none.
func (r Release) String() string {
	parts := make([]string, len(r))
	for i, p := range r {
		parts[i] = p.String()
	}
	return strings.Join(parts, ".")
}

// Compare orders releases: any release above none, otherwise segment by
// segment with semver pre-release rules.
func (r Release) Compare(o Release) int {
	switch {
	case len(r) == 0 && len(o) == 0:
		return 0
	case len(r) == 0:
		return -1
	case len(o) == 0:
		return 1
	}
	return semver.Version{Pre: r}.Compare(semver.Version{Pre: o})
}

// VersionRelease is a version with an optional release.
type VersionRelease struct {
	Version semver.Version
	Release Release
}

// Compare orders by version (build metadata ignored, as blang does), then
// release.
func (vr VersionRelease) Compare(o VersionRelease) int {
	if c := vr.Version.Compare(o.Version); c != 0 {
		return c
	}
	return vr.Release.Compare(o.Release)
}

// String is the version, then "-" and the release when there is one.
func (vr VersionRelease) String() string {
	if len(vr.Release) == 0 {
		return vr.Version.String()
	}
	return vr.Version.String() + "-" + vr.Release.String()
}
