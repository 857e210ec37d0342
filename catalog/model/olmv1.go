package model

import (
	"fmt"
	"slices"
	"strings"

	mmsemver "github.com/Masterminds/semver/v3"
	"github.com/blang/semver/v4"
)

// V1Query is a ClusterExtension's view of one catalog: the installed
// bundle (nil for a new install), spec.source.catalog.channels (empty:
// every channel; defaultChannel is never used), spec.source.catalog.version
// (a Masterminds constraint, "" for none), upgradeConstraintPolicy
// SelfCertified (no successor check), and the BundleReleaseSupport
// feature gate (off by default: a release is read from build metadata).
type V1Query struct {
	// Package is spec.source.catalog.packageName (ResolveV1 defaults it
	// to its package; ResolveV1Set needs it for its messages).
	Package              string
	Installed            *Installed
	Channels             []string
	VersionRange         string
	SelfCertified        bool
	BundleReleaseSupport bool
}

// V1Candidate is a bundle OLM v1 may install.
type V1Candidate struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Release string `json:"release,omitempty"`
	// Deprecated is the bundle-level deprecation message (OLM v1 sorts
	// deprecated bundles last).
	Deprecated string `json:"deprecated,omitempty"`
	// Installed says the candidate has the installed version and release
	// (staying is always allowed).
	Installed bool `json:"installed,omitempty"`
	// Via are the edges from the installed bundle that make it a
	// successor.
	Via []Via `json:"via,omitempty"`
}

// V1Result is OLM v1's resolution: the candidates in its order and the
// pick (the first), or the resolution error, or the pick's refusal.
type V1Result struct {
	Semantics    string        `json:"semantics"`
	Channels     []string      `json:"channels,omitempty"`
	VersionRange string        `json:"versionRange,omitempty"`
	Candidates   []V1Candidate `json:"candidates"`
	// CandidatesTotal is set only in a written next/ file whose
	// Candidates are cut to the first ones (InstalledView.Bounded): the
	// number of candidates.
	CandidatesTotal int          `json:"candidatesTotal,omitempty"`
	Pick            *V1Candidate `json:"pick"`
	// Refusal is the post-pick validation's failure: the bundle the
	// resolver chose and the controller then refuses (Pick is nil, Error
	// is the controller's message). There is no fallback to an older
	// bundle.
	Refusal *V1Refusal `json:"refusal,omitempty"`
	Error   string     `json:"error,omitempty"`
}

// V1Refusal is operator-controller's NoDependencyValidation failing on
// the resolved bundle: the bundle, the first of its properties (in the
// bundle's order) that declares a dependency, and the controller's error.
type V1Refusal struct {
	Bundle   string `json:"bundle"`
	Property string `json:"property"`
	Message  string `json:"message"`
}

// bundleVersionRelease is operator-controller's
// bundleutil.GetVersionAndRelease: with the gate on and a release key in
// olm.package, the explicit release; otherwise the registry+v1 legacy
// reading, where build metadata that parses as a release is the release.
func bundleVersionRelease(b *Bundle, releaseSupport bool) (VersionRelease, error) {
	pp := b.PackageProperty
	if releaseSupport && pp.releaseSet {
		return parseExplicitRelease(pp.Version, pp.Release)
	}
	if b.legacyReady {
		return b.legacyVR, b.legacyErr
	}
	return parseLegacyVersionRelease(pp.Version)
}

// parseLegacyVersionRelease is bundleutil.ParseLegacyVersionRelease.
func parseLegacyVersionRelease(s string) (VersionRelease, error) {
	v, err := semver.Parse(s)
	if err != nil {
		return VersionRelease{}, err
	}
	vr := VersionRelease{Version: v}
	if rel, err := NewRelease(strings.Join(v.Build, ".")); err == nil && len(rel) > 0 {
		vr.Release = rel
		vr.Version.Build = nil
	}
	return vr, nil
}

// parseExplicitRelease is bundleutil.ParseExplicitRelease: an explicit
// empty release is an empty, non-nil Release.
func parseExplicitRelease(version, release string) (VersionRelease, error) {
	v, err := semver.Parse(version)
	if err != nil {
		return VersionRelease{}, fmt.Errorf("error parsing version %q: %w", version, err)
	}
	if release == "" {
		return VersionRelease{Version: v, Release: Release{}}, nil
	}
	rel, err := NewRelease(release)
	if err != nil {
		return VersionRelease{}, fmt.Errorf("error parsing release %q: %w", release, err)
	}
	return VersionRelease{Version: v, Release: rel}, nil
}

// InstalledV1 is the bundle's BundleMetadata once OLM v1 installed it
// (bundleutil.MetadataFor): with the gate on, version and release apart;
// otherwise the release folded back into build metadata.
func (b *Bundle) InstalledV1(releaseSupport bool) (Installed, error) {
	vr, err := bundleVersionRelease(b, releaseSupport)
	if err != nil {
		return Installed{}, err
	}
	if releaseSupport {
		in := Installed{Name: b.Name, Version: vr.Version.String()}
		if vr.Release != nil {
			rel := vr.Release.String()
			in.Release = &rel
		}
		return in, nil
	}
	v := vr.Version
	if len(vr.Release) > 0 {
		v.Build = make([]string, len(vr.Release))
		for i, r := range vr.Release {
			v.Build[i] = r.String()
		}
	}
	return Installed{Name: b.Name, Version: v.String()}, nil
}

// installedVersionRelease is the successor filter's
// parseInstalledBundleVersionRelease.
func installedVersionRelease(in Installed) (VersionRelease, error) {
	if in.Release == nil {
		vr, err := parseLegacyVersionRelease(in.Version)
		if err != nil {
			return vr, fmt.Errorf("failed to get version and release of installed bundle: %w", err)
		}
		return vr, nil
	}
	vr, err := parseExplicitRelease(in.Version, *in.Release)
	if err != nil {
		return vr, fmt.Errorf("failed to parse installed bundle version and release: %w", err)
	}
	return vr, nil
}

// v1Edges is the successor filter's isSuccessor for one entry: replaces
// or skips naming the installed bundle, or a skipRange (blang, kept for
// OLM v0 compatibility) holding its version.
func v1Edges(e *Entry, name string, version semver.Version) []Via {
	var via []Via
	if e.Replaces == name {
		via = append(via, Via{Channel: e.Channel.Name, Type: EdgeReplaces})
	}
	if slices.Contains(e.Skips, name) {
		via = append(via, Via{Channel: e.Channel.Name, Type: EdgeSkips})
	}
	if e.Range != nil && e.Range(version) {
		via = append(via, Via{Channel: e.Channel.Name, Type: EdgeSkipRange, Range: e.SkipRange})
	}
	return via
}

// mastermindsRange is compare.NewVersionRange: a Masterminds constraint
// checked against the version (release ignored).
func mastermindsRange(s string) (func(semver.Version) bool, error) {
	c, err := mmsemver.NewConstraint(s)
	if err != nil {
		return nil, err
	}
	return func(v semver.Version) bool {
		pre := make([]string, len(v.Pre))
		for i, p := range v.Pre {
			pre[i] = p.String()
		}
		return c.Check(mmsemver.New(v.Major, v.Minor, v.Patch, strings.Join(pre, "."), strings.Join(v.Build, ".")))
	}, nil
}

// ResolveV1 is operator-controller's CatalogResolver.Resolve over this
// package of one catalog: bundles filtered by channel, version range and
// (with an installed bundle, unless SelfCertified) successors-or-installed,
// sorted non-deprecated first then by version and release, highest first
// (a stable sort: ties keep catalog order); the first is picked, then
// validated as the controller does (NoDependencyValidation: a pick that
// declares a dependency is refused, Pick nil, Refusal set). It is
// ResolveV1Set over a one-catalog set.
func (p *Package) ResolveV1(q V1Query) V1Result {
	if q.Package == "" {
		q.Package = p.Name
	}
	r := ResolveV1Set([]V1CatalogMember{{Package: p}}, q).V1Result
	r.Semantics = SemanticsV1
	return r
}

// v1Cand is a candidate with what the sort reads.
type v1Cand struct {
	c          V1Candidate
	vr         VersionRelease
	vrErr      error
	deprecated bool
}

// v1Candidates is one catalog's step of Resolve: the package's bundles
// filtered by channel, version range (inRange nil: none) and successors,
// sorted (non-deprecated first, then highest version and release). The
// error is the walk function's (the whole resolution fails).
func (p *Package) v1Candidates(q V1Query, inRange func(semver.Version) bool) ([]v1Cand, error) {
	return p.v1CandidatesOf(q, inRange, true)
}

// v1CandidatesOf is v1Candidates asking, when indexed and the index
// applies, only the bundles v1SuccessorIndex finds, else every bundle
// (the same answer: the others are never successors nor the installed
// version).
func (p *Package) v1CandidatesOf(q V1Query, inRange func(semver.Version) bool, indexed bool) ([]v1Cand, error) {
	// The channels whose entries count: all, or those the filter names
	// (the resolver shrinks the package's channel list in place, so
	// successors too come only from them).
	chans := p.Channels
	if len(q.Channels) > 0 {
		chans = nil
		for _, ch := range p.Channels {
			if slices.Contains(q.Channels, ch.Name) {
				chans = append(chans, ch)
			}
		}
	}
	successors := q.Installed != nil && !q.SelfCertified
	var instVR VersionRelease
	var instVersion semver.Version
	if successors {
		var err error
		if instVR, err = installedVersionRelease(*q.Installed); err != nil {
			return nil, fmt.Errorf("error finding upgrade edges: %w", err)
		}
		if instVersion, err = semver.Parse(q.Installed.Version); err != nil {
			return nil, fmt.Errorf("error finding upgrade edges: getting successorsPredicate: error parsing installed bundle version: %w", err)
		}
	}
	bundles := p.Bundles
	if indexed && successors && !q.BundleReleaseSupport {
		bundles = p.v1Successors().from(p, q.Installed.Name, instVR)
	}
	var cands []v1Cand
	for _, b := range bundles {
		if len(q.Channels) > 0 && !inAnyChannel(chans, b.Name) {
			continue
		}
		vr, vrErr := bundleVersionRelease(b, q.BundleReleaseSupport)
		if inRange != nil && (vrErr != nil || !inRange(vr.Version)) {
			continue
		}
		c := V1Candidate{Name: b.Name, Version: b.PackageProperty.Version}
		if vrErr == nil {
			c.Version, c.Release = vr.Version.String(), vr.Release.String()
		}
		if b.Deprecation != nil {
			c.Deprecated = b.Deprecation.Message
		}
		if successors {
			for _, ch := range chans {
				if e := ch.entryByName[b.Name]; e != nil {
					c.Via = append(c.Via, v1Edges(e, q.Installed.Name, instVersion)...)
				}
			}
			c.Installed = vrErr == nil && vr.Compare(instVR) == 0
			if len(c.Via) == 0 && !c.Installed {
				continue
			}
		}
		cands = append(cands, v1Cand{c, vr, vrErr, b.Deprecation != nil})
	}
	slices.SortStableFunc(cands, func(a, b v1Cand) int {
		switch ad, bd := a.deprecated, b.deprecated; {
		case ad && !bd:
			return 1
		case !ad && bd:
			return -1
		}
		switch {
		case a.vrErr != nil && b.vrErr != nil:
			return 0
		case a.vrErr != nil:
			return 1
		case b.vrErr != nil:
			return -1
		}
		return b.vr.Compare(a.vr)
	})
	return cands, nil
}

func inAnyChannel(chans []*Channel, name string) bool {
	for _, ch := range chans {
		if ch.entryByName[name] != nil {
			return true
		}
	}
	return false
}
