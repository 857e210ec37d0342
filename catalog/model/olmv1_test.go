package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

func candNames(r V1Result) []string {
	out := []string{}
	for _, c := range r.Candidates {
		out = append(out, c.Name)
	}
	return out
}

func strp(s string) *string { return &s }

// TestSuccessorsPredicate ports operator-controller internal/operator-
// controller/catalogmetadata/filter/successors_test.go
// TestSuccessorsPredicate: the bundles that pass SuccessorsOf (no channel
// filter, no version range), highest first.
func TestSuccessorsPredicate(t *testing.T) {
	const pkg = "test-package"
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{newTestPackage(pkg, "stable")},
		Channels: []declcfg.Channel{newTestChannel(pkg, "stable",
			ce("test-package.v2.0.0", ""),
			ce("test-package.v2.1.0", "test-package.v2.0.0"),
			ce("test-package.v2.2.0", "test-package.v2.1.0", "test-package.v2.0.0+1"),
			ce("test-package.v2.2.1", ""),
			ce("test-package.v2.3.0", "test-package.v2.2.0", "test-package.v2.2.1"),
			cer("test-package.v2.4.0", "", ">=2.3.0 <2.4.0"),
		)},
	}
	for _, v := range []string{"2.0.0", "2.0.0+1", "2.1.0", "2.2.0", "2.2.1", "2.3.0", "2.4.0"} {
		cfg.Bundles = append(cfg.Bundles, simpleBundle(pkg, "test-package.v"+v, v))
	}
	p := Convert(cfg).Package(pkg)
	legacy := func(name, version string) *Installed { return &Installed{Name: name, Version: version} }
	for _, tc := range []struct {
		name      string // upstream case
		installed *Installed
		want      []string
	}{
		{"respect replaces directive from catalog", legacy("test-package.v2.0.0", "2.0.0"), []string{"test-package.v2.1.0", "test-package.v2.0.0"}},
		{"respect skips directive from catalog", legacy("test-package.v2.2.1", "2.2.1"), []string{"test-package.v2.3.0", "test-package.v2.2.1"}},
		{"respect skipRange directive from catalog", legacy("test-package.v2.3.0", "2.3.0"), []string{"test-package.v2.4.0", "test-package.v2.3.0"}},
		// 2.0.0+1 is version 2.0.0 release 1 (registry+v1 legacy): 2.1.0
		// replaces 2.0.0, not it.
		{"installed bundle matcher is exact", legacy("test-package.v2.0.0+1", "2.0.0+1"), []string{"test-package.v2.2.0", "test-package.v2.0.0+1"}},
		{"installed bundle not found", legacy("test-package.v9.0.0", "9.0.0"), []string{}},
		{"explicit release field - non-empty", &Installed{Name: "test-package.v1.0.0", Version: "1.0.0", Release: strp("2")}, []string{}},
		{"explicit empty release with build metadata preserves build metadata", &Installed{Name: "test-package.v1.0.0+git", Version: "1.0.0+git", Release: strp("")}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := p.ResolveV1(V1Query{Installed: tc.installed})
			if got := candNames(r); !slices.Equal(got, tc.want) {
				t.Errorf("candidates = %q, want %q (error %q)", got, tc.want, r.Error)
			}
		})
	}
}

// TestLegacySuccessor ports successors_test.go TestLegacySuccessor: which
// entries are successors of package1.v0.0.1.
func TestLegacySuccessor(t *testing.T) {
	ch := &Channel{Name: "c"}
	for _, tc := range []struct {
		e    declcfg.ChannelEntry
		want bool
	}{
		{ce("package1.v0.0.2", "package1.v0.0.1"), true},
		{ce("package1.v0.0.3", "package1.v0.0.2"), false},
		{ce("package1.v0.0.4", "", "package1.v0.0.1"), true},
		{cer("package1.v0.0.5", "", "<=0.0.1"), true},
		{declcfg.ChannelEntry{}, false},
	} {
		e := &Entry{Channel: ch, Name: tc.e.Name, Replaces: tc.e.Replaces, Skips: tc.e.Skips, SkipRange: tc.e.SkipRange}
		if e.SkipRange != "" {
			e.Range, e.RangeErr = semver.ParseRange(e.SkipRange)
		}
		v, _ := parseLegacyVersionRelease("0.0.1")
		if got := len(v1Edges(e, "package1.v0.0.1", v.Version)) > 0; got != tc.want {
			t.Errorf("%q: successor = %v, want %v", tc.e.Name, got, tc.want)
		}
	}
}

// TestParseInstalledBundleVersionReleaseErrors ports successors_test.go
// TestParseInstalledBundleVersionRelease_Errors and TestSuccessorsOf_Errors.
func TestParseInstalledBundleVersionReleaseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Installed
		want string
	}{
		{"invalid version - legacy format", Installed{Name: "test", Version: "invalid-version"}, "failed to get version and release"},
		{"invalid version - explicit release format", Installed{Name: "test", Version: "invalid-version", Release: strp("1")}, "failed to parse installed bundle version"},
		{"invalid release - explicit release format", Installed{Name: "test", Version: "1.0.0", Release: strp("001")}, "failed to parse installed bundle version and release"},
	} {
		if _, err := installedVersionRelease(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	// TestSuccessorsOf_Errors
	p := v0Cat("p", "s", nil, newTestChannel("p", "s", ce("p.v1", "")))
	if r := p.ResolveV1(V1Query{Installed: &Installed{Name: "test", Version: "invalid"}}); r.Error == "" || r.Pick != nil {
		t.Errorf("invalid installed version: %+v", r)
	}
}

// genPackage is operator-controller resolve/catalog_test.go's genPackage:
// channels alpha, beta, gamma; 1.0.0 and 1.0.1 deprecated; no
// defaultChannel (OLM v1 never reads it).
func genPackage(pkg string) *Package {
	bn := func(v string) string { return fmt.Sprintf("%s.v%s", pkg, v) }
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: pkg}},
		Channels: []declcfg.Channel{
			newTestChannel(pkg, "alpha", ce(bn("0.1.0"), ""), cer(bn("1.0.0"), "", "<1.0.0"), cer(bn("1.0.1"), "", "<1.0.1"),
				cer(bn("1.0.2"), "", "<1.0.2"), cer(bn("2.0.0"), "", ">=1.0.0 <2.0.0")),
			newTestChannel(pkg, "beta", ce(bn("0.1.0"), ""), cer(bn("1.0.2"), "", "<1.0.2")),
			newTestChannel(pkg, "gamma", cer(bn("3.0.0"), "", ">=2.0.0 <3.0.0")),
		},
		Deprecations: []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations, Package: pkg, Entries: []declcfg.DeprecationEntry{
			{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: bn("1.0.0")}, Message: "bundle " + bn("1.0.0") + " is deprecated"},
			{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: bn("1.0.1")}, Message: "bundle " + bn("1.0.1") + " is deprecated"},
		}}},
	}
	for _, v := range []string{"0.1.0", "1.0.0", "1.0.1", "1.0.2", "2.0.0", "3.0.0"} {
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: pkg, Name: bn(v),
			Properties: []declcfg.Property{propPackageValue(pkg, v)}})
	}
	return Convert(cfg).Package(pkg)
}

// TestResolveV1 ports the single-catalog cases of operator-controller
// internal/operator-controller/resolve/catalog_test.go (one test each).
func TestResolveV1(t *testing.T) {
	const pkg = "pkg-abcde"
	p := genPackage(pkg)
	inst := func(v string) *Installed { return &Installed{Name: fmt.Sprintf("%s.v%s", pkg, v), Version: v} }
	for _, tc := range []struct {
		name string // upstream test
		q    V1Query
		pick string // version picked, "" for an error
		err  string
	}{
		{"TestInvalidClusterExtensionVersionRange", V1Query{VersionRange: "foobar"}, "", `desired version range "foobar" is invalid: improper constraint: "foobar"`},
		{"TestVersionDoesNotExist", V1Query{VersionRange: "4.0.0"}, "", `no bundles found for package "pkg-abcde" matching version "4.0.0"`},
		{"TestVersionExists", V1Query{VersionRange: ">=1.0.0 <2.0.0"}, "1.0.2", ""},
		{"TestChannelDoesNotExist", V1Query{Channels: []string{"stable"}}, "", `no bundles found for package "pkg-abcde" in channels [stable]`},
		{"TestChannelExists", V1Query{Channels: []string{"beta"}}, "1.0.2", ""},
		{"TestChannelExistsButNotVersion", V1Query{Channels: []string{"beta"}, VersionRange: "3.0.0"}, "", `no bundles found for package "pkg-abcde" matching version "3.0.0" in channels [beta]`},
		{"TestVersionExistsButNotChannel", V1Query{Channels: []string{"stable"}, VersionRange: "1.0.0"}, "", `no bundles found for package "pkg-abcde" matching version "1.0.0" in channels [stable]`},
		{"TestChannelAndVersionExist", V1Query{Channels: []string{"alpha"}, VersionRange: "0.1.0"}, "0.1.0", ""},
		{"TestPreferNonDeprecated", V1Query{VersionRange: ">=0.1.0 <=1.0.0"}, "0.1.0", ""},
		{"TestAcceptDeprecated", V1Query{VersionRange: ">=1.0.0 <=1.0.1"}, "1.0.1", ""},
		{"TestUpgradeFoundLegacy", V1Query{Installed: inst("0.1.0")}, "1.0.2", ""},
		{"TestUpgradeNotFoundLegacy", V1Query{Installed: inst("0.1.0"), VersionRange: "<1.0.0 >=2.0.0"}, "",
			`error upgrading from currently installed version "0.1.0": no bundles found for package "pkg-abcde" matching version "<1.0.0 >=2.0.0"`},
		{"TestDowngradeFound", V1Query{Installed: inst("1.0.2"), VersionRange: "<1.0.2", SelfCertified: true}, "0.1.0", ""},
		{"TestDowngradeNotFound", V1Query{Installed: inst("1.0.2"), VersionRange: ">0.1.0 <1.0.0", SelfCertified: true}, "",
			`error upgrading from currently installed version "1.0.2": no bundles found for package "pkg-abcde" matching version ">0.1.0 <1.0.0"`},
		{"TestMultipleChannels", V1Query{Channels: []string{"beta", "alpha"}}, "2.0.0", ""},
		// spec §1.5.4: with a channel filter, edges come only from the
		// filtered channels: gamma's 3.0.0 (skipRange >=2.0.0 <3.0.0) is a
		// successor of 2.0.0 without a filter, not with [alpha].
		{"channel filter restricts successor edges (no filter)", V1Query{Installed: inst("2.0.0")}, "3.0.0", ""},
		{"channel filter restricts successor edges ([alpha, gamma] keeps gamma's edge)", V1Query{Installed: inst("2.0.0"), Channels: []string{"alpha", "gamma"}}, "3.0.0", ""},
		{"channel filter restricts successor edges ([alpha]: stays)", V1Query{Installed: inst("2.0.0"), Channels: []string{"alpha"}}, "2.0.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := p.ResolveV1(tc.q)
			if r.Error != tc.err {
				t.Fatalf("error = %q, want %q", r.Error, tc.err)
			}
			got := ""
			if r.Pick != nil {
				got = r.Pick.Version
			}
			if got != tc.pick {
				t.Errorf("pick = %q, want %q (candidates %q)", got, tc.pick, candNames(r))
			}
			if r.Semantics != SemanticsV1 {
				t.Error("unlabelled")
			}
		})
	}

	// TestPackageVariationsBetweenCatalogs, "highest semver bundle is
	// chosen when candidates are all from the same catalog" (catalog f).
	f := Convert(&declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: pkg}},
		Bundles: []declcfg.Bundle{
			{Schema: declcfg.SchemaBundle, Package: pkg, Name: pkg + ".v1.0.4", Properties: []declcfg.Property{propPackageValue(pkg, "1.0.4")}},
			{Schema: declcfg.SchemaBundle, Package: pkg, Name: pkg + ".v1.0.5", Properties: []declcfg.Property{propPackageValue(pkg, "1.0.5")}},
		},
	}).Package(pkg)
	if r := f.ResolveV1(V1Query{VersionRange: ">=1.0.4 <=1.0.5"}); r.Pick == nil || r.Pick.Name != pkg+".v1.0.5" {
		t.Errorf("TestPackageVariationsBetweenCatalogs/same catalog: %+v", r)
	}
}

// TestResolveV1Candidates: the order (bundle deprecation last, then
// version and release highest first), the installed flag and the edges.
func TestResolveV1Candidates(t *testing.T) {
	const pkg = "pkg-abcde"
	r := genPackage(pkg).ResolveV1(V1Query{Installed: &Installed{Name: pkg + ".v0.1.0", Version: "0.1.0"}})
	want := []string{pkg + ".v1.0.2", pkg + ".v0.1.0", pkg + ".v1.0.1", pkg + ".v1.0.0"}
	if got := candNames(r); !slices.Equal(got, want) {
		t.Fatalf("candidates = %q, want %q", got, want)
	}
	c := r.Candidates
	if !c[1].Installed || c[0].Installed || c[2].Deprecated == "" || c[0].Deprecated != "" {
		t.Errorf("flags: %+v", c)
	}
	if len(c[0].Via) != 2 || c[0].Via[0] != (Via{Channel: "alpha", Type: EdgeSkipRange, Range: "<1.0.2"}) || c[0].Via[1].Channel != "beta" {
		t.Errorf("via of 1.0.2 = %+v", c[0].Via)
	}
}

// TestBundleVersionRelease: the registry+v1 legacy reading (build
// metadata as release) and the explicit release of the
// BundleReleaseSupport gate.
func TestBundleVersionRelease(t *testing.T) {
	for _, tc := range []struct {
		version, release string
		releaseKey       bool
		gate             bool
		want             string
	}{
		{"1.0.0+2", "", false, false, "1.0.0-2"},
		{"1.0.0+git.abc", "", false, false, "1.0.0-git.abc"},
		{"1.0.0+001", "", false, false, "1.0.0+001"}, // not a release: build kept
		{"1.0.0", "3", true, false, "1.0.0"},         // gate off: explicit release ignored
		{"1.0.0", "3", true, true, "1.0.0-3"},
		{"1.0.0+git", "", true, true, "1.0.0+git"},
	} {
		b := &Bundle{PackageProperty: PackageProperty{Version: tc.version, Release: tc.release, releaseSet: tc.releaseKey}}
		vr, err := bundleVersionRelease(b, tc.gate)
		if err != nil || vr.String() != tc.want {
			t.Errorf("%+v: %v %v, want %s", tc, vr, err, tc.want)
		}
	}
}
