package model

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

func entries(es ...*Entry) ([]*Entry, map[string]*Entry) {
	m := map[string]*Entry{}
	for _, e := range es {
		m[e.Name] = e
	}
	return es, m
}

// TestChannelHead ports operator-registry alpha/model/model_test.go
// TestChannelHead.
func TestChannelHead(t *testing.T) {
	head := &Entry{Name: "anakin.v0.0.3", Replaces: "anakin.v0.0.1", Skips: []string{"anakin.v0.0.2"}}
	for _, tc := range []struct {
		name    string // upstream case
		entries []*Entry
		head    *Entry
		err     string
	}{
		{"Success/Valid", []*Entry{{Name: "anakin.v0.0.1"}, {Name: "anakin.v0.0.2"}, head}, head, ""},
		{"Error/NoChannelHead", []*Entry{{Name: "anakin.v0.0.1", Replaces: "anakin.v0.0.3"}, head}, nil, "no channel head found in graph"},
		{"Error/MultipleChannelHeads", []*Entry{{Name: "anakin.v0.0.1"}, head, {Name: "anakin.v0.0.4", Replaces: "anakin.v0.0.1"}},
			nil, "multiple channel heads found in graph: anakin.v0.0.3, anakin.v0.0.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := channelHead(tc.entries)
			if h != tc.head {
				t.Errorf("head = %v, want %v", h, tc.head)
			}
			if got := errString(err); got != tc.err {
				t.Errorf("error = %q, want %q", got, tc.err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestValidReplacesChain ports operator-registry alpha/model/model_test.go
// TestValidReplacesChain (the operator-registry#1750 rule), plus cases of
// the rule's four clauses.
func TestValidReplacesChain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []*Entry
		err     string
	}{
		// upstream TestValidReplacesChain cases
		{"Success/Valid", []*Entry{
			{Name: "anakin.v0.0.1"},
			{Name: "anakin.v0.0.2", Skips: []string{"anakin.v0.0.1"}},
			{Name: "anakin.v0.0.3", Skips: []string{"anakin.v0.0.2"}},
			{Name: "anakin.v0.0.4", Replaces: "anakin.v0.0.3"},
		}, ""},
		{"Error/CycleNoHops", []*Entry{
			{Name: "anakin.v0.0.4", Replaces: "anakin.v0.0.4"},
			{Name: "anakin.v0.0.5", Replaces: "anakin.v0.0.4"},
		}, "detected cycle in replaces chain of upgrade graph: anakin.v0.0.4 -> anakin.v0.0.4"},
		{"Error/CycleMultipleHops", []*Entry{
			{Name: "anakin.v0.0.1", Replaces: "anakin.v0.0.3"},
			{Name: "anakin.v0.0.2", Replaces: "anakin.v0.0.1"},
			{Name: "anakin.v0.0.3", Replaces: "anakin.v0.0.2"},
			{Name: "anakin.v0.0.4", Replaces: "anakin.v0.0.3"},
		}, "detected cycle in replaces chain of upgrade graph: anakin.v0.0.3 -> anakin.v0.0.2 -> anakin.v0.0.1 -> anakin.v0.0.3"},
		{"Error/Stranded", []*Entry{
			{Name: "anakin.v0.0.1"},
			{Name: "anakin.v0.0.2", Replaces: "anakin.v0.0.1"},
			{Name: "anakin.v0.0.3", Skips: []string{"anakin.v0.0.2"}},
		}, "channel contains one or more stranded bundles: anakin.v0.0.1"},
		{"Error/SkippedReplacesStranded", []*Entry{
			{Name: "anakin.v0.0.1"},
			{Name: "anakin.v0.0.2", Replaces: "anakin.v0.0.1"},
			{Name: "anakin.v0.0.3", Replaces: "anakin.v0.0.2", Skips: []string{"anakin.v0.0.2"}},
		}, "channel contains one or more stranded bundles: anakin.v0.0.1"},
		// the rule's clauses (spec §1.2)
		{"tail replaces an absent bundle", []*Entry{
			{Name: "a.v2", Replaces: "a.v1"},
			{Name: "a.v3", Replaces: "a.v2"},
		}, ""},
		{"two heads", []*Entry{{Name: "a.v1"}, {Name: "a.v2", SkipRange: "<2.0.0"}}, "multiple channel heads found in graph: a.v1, a.v2"},
		{"skipRange-only new entry makes a second head (operator-registry#822)", []*Entry{
			{Name: "a.v1"}, {Name: "a.v2", Replaces: "a.v1"}, {Name: "a.v3", SkipRange: "<3.0.0"},
		}, "multiple channel heads found in graph: a.v2, a.v3"},
		{"walk stops at a skipped target; what lies beyond is stranded unless skipped", []*Entry{
			{Name: "a.v1"}, {Name: "a.v2", Replaces: "a.v1"}, {Name: "a.v3", Replaces: "a.v2"}, {Name: "a.v4", Replaces: "a.v3", Skips: []string{"a.v3"}},
		}, "channel contains one or more stranded bundles: a.v1, a.v2"},
		{"skips naming a bundle outside the channel still stop the walk", []*Entry{
			{Name: "a.v1"}, {Name: "a.v2", Replaces: "a.v1", Skips: []string{"a.v1"}}, {Name: "a.v3", Replaces: "a.v2"},
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es, byName := entries(tc.entries...)
			if got := errString(validateReplacesChain(es, byName)); got != tc.err {
				t.Errorf("error = %q, want %q", got, tc.err)
			}
		})
	}
}

// TestConvertToModel ports operator-registry alpha/declcfg/
// declcfg_to_model_test.go TestConvertToModel: each case's verdict, and
// its error (upstream's message, or its innermost line for the
// Model.Validate tree) among our problems with the rule that reports it.
func TestConvertToModel(t *testing.T) {
	foo := func(opts ...bundleOpt) declcfg.Bundle { return newTestBundle("foo", "0.1.0", opts...) }
	alpha := func(es ...declcfg.ChannelEntry) declcfg.Channel { return newTestChannel("foo", "alpha", es...) }
	e010 := declcfg.ChannelEntry{Name: "foo.v0.1.0"}
	withPkg := []declcfg.Package{newTestPackage("foo", "alpha")}
	for _, tc := range []struct {
		name string // upstream case
		cfg  declcfg.DeclarativeConfig
		rule string // "" for success
		msg  string
	}{
		{"Error/PackageNoName", declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage("", "alpha")}, Bundles: []declcfg.Bundle{{Name: "foo.v0.1.0"}}},
			RulePackageName, `config contains package with no name`},
		{"Error/BundleMissingPackageName", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{{Name: "foo.v0.1.0"}}},
			RuleBundlePackage, `package name must be set for bundle "foo.v0.1.0"`},
		{"Error/BundleUnknownPackage", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{newTestBundle("bar", "0.1.0")}},
			RuleBundlePackage, `unknown package "bar" for bundle "bar.v0.1.0"`},
		{"Error/BundleMissingChannel", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{foo()}},
			RuleBundleChannel, `package "foo", bundle "foo.v0.1.0" not found in any channel entries`},
		{"Error/BundleInvalidProperties", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{foo(func(b *declcfg.Bundle) {
			b.Properties = append(b.Properties, declcfg.Property{Type: "olm.foo", Value: json.RawMessage("{")})
		})}}, RuleProperties, `parse properties for bundle "foo.v0.1.0": parse property[2] of type "olm.foo": unexpected end of JSON input`},
		{"Error/BundlePackageMismatch", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{foo(withProps(propPackageValue("foooperator", "0.1.0")))}},
			RulePackageProperty, `package "foo" does not match "olm.package" property "foooperator"`},
		{"Error/BundleInvalidVersion", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{foo(withProps(propPackageValue("foo", "0.1.0.1")))}},
			RuleVersion, `error parsing bundle "foo.v0.1.0" version "0.1.0.1": Invalid character(s) found in patch number "0.1"`},
		{"Error/BundleMissingVersion", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{newTestBundle("foo", "")}},
			RuleVersion, `error parsing bundle "foo.v" version "": Version string empty`},
		{"Error/PackageMissingDefaultChannel", declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage("foo", "")},
			Channels: []declcfg.Channel{newTestChannel("foo", "bar", e010)}, Bundles: []declcfg.Bundle{foo()}},
			RuleDefaultChannel, `default channel must be set`},
		{"Error/PackageNonExistentDefaultChannel", declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage("foo", "bar")},
			Channels: []declcfg.Channel{newTestChannel("foo", "bar")}},
			RuleChannelEntries, `channel must contain at least one bundle`},
		{"Error/BundleMissingPackageProperty", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{foo(withNoProperties())}},
			RulePackageProperty, `package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 0`},
		{"Error/BundleMultiplePackageProperty", declcfg.DeclarativeConfig{Packages: withPkg, Bundles: []declcfg.Bundle{foo(withProps(propPackageValue("foo", "0.1.0"), propPackageValue("foo", "0.1.0")))}},
			RulePackageProperty, `package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 2`},
		{"Success/BundleWithDataButMissingImage", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo(withNoBundleImage())}},
			"", ""},
		{"Error/ChannelEntryWithoutBundle", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}},
			RuleEntryBundle, `no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.1.0]`},
		{"Error/BundleWithoutChannelEntry", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{newTestBundle("foo", "0.2.0")}},
			RuleBundleChannel, `package "foo", bundle "foo.v0.2.0" not found in any channel entries`},
		{"Error/ChannelMissingName", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{newTestChannel("foo", "", e010)}, Bundles: []declcfg.Bundle{newTestBundle("foo", "0.2.0")}},
			RuleChannel, `package "foo" contains channel with no name`},
		{"Error/ChannelMissingPackageName", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{newTestChannel("", "alpha", e010)}, Bundles: []declcfg.Bundle{newTestBundle("foo", "0.2.0")}},
			RuleChannel, `unknown package "" for channel "alpha"`},
		{"Error/ChannelNonExistentPackage", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{newTestChannel("non-existent", "alpha", e010)}, Bundles: []declcfg.Bundle{foo()}},
			RuleChannel, `unknown package "non-existent" for channel "alpha"`},
		{"Error/ChannelDuplicateEntry", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010, e010)}, Bundles: []declcfg.Bundle{foo()}},
			RuleChannelEntries, `invalid package "foo", channel "alpha": duplicate entry "foo.v0.1.0"`},
		{"Error/DuplicatePackage", declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage("foo", "alpha"), newTestPackage("foo", "alpha")},
			Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()}},
			RuleDuplicatePackage, `duplicate package "foo"`},
		{"Error/PackageBreaksRFC1123", declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage("foo.bar", "alpha")},
			Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()}},
			RulePackageName, `invalid package name "foo.bar": [must not contain dots]`},
		{"Error/DuplicateChannel", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010), alpha(e010)}, Bundles: []declcfg.Bundle{foo()}},
			RuleChannel, `package "foo" has duplicate channel "alpha"`},
		{"Error/DuplicateBundle", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo(), foo()}},
			RuleBundlePackage, `package "foo" has duplicate bundle "foo.v0.1.0"`},
		{"Success/ValidModel", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()}},
			"", ""},
		{"Success/ValidModelWithChannelProperties", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{func() declcfg.Channel {
			c := alpha(e010)
			c.Properties = []declcfg.Property{{Type: "user", Value: json.RawMessage(`{"group":"xyz.com","name":"account"}`)}}
			return c
		}()}, Bundles: []declcfg.Bundle{foo()}}, "", ""},
		{"Success/ValidModelWithPackageProperties", declcfg.DeclarativeConfig{Packages: []declcfg.Package{func() declcfg.Package {
			p := newTestPackage("foo", "alpha")
			p.Properties = []declcfg.Property{{Type: "owner", Value: json.RawMessage(`{"group":"abc.com","name":"admin"}`)}}
			return p
		}()}, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()}}, "", ""},
		{"Error/Deprecation/UnspecifiedPackage", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()},
			Deprecations: []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations}}},
			RuleDeprecation, `package name must be set for deprecation item 0`},
		{"Error/Deprecation/OutOfBoundsBundle", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()},
			Deprecations: []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations, Package: "foo", Entries: []declcfg.DeprecationEntry{
				{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: "foo.v2.0.0"}, Message: "foo.v2.0.0 doesn't exist in the first place"}}}}},
			RuleDeprecation, `cannot deprecate bundle "foo.v2.0.0" for package "foo": bundle not found`},
		{"Error/Deprecation/OutOfBoundsPackage", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()},
			Deprecations: []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations, Package: "nyarl"}}},
			RuleDeprecation, `cannot apply deprecations to an unknown package "nyarl"`},
		{"Error/Deprecation/MultiplePerPackage", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()},
			Deprecations: []declcfg.Deprecation{
				{Schema: declcfg.SchemaDeprecations, Package: "foo", Entries: []declcfg.DeprecationEntry{
					{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaChannel, Name: "alpha"}, Message: "no more alpha channel"}}},
				{Schema: declcfg.SchemaDeprecations, Package: "foo", Entries: []declcfg.DeprecationEntry{
					{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: "foo.v0.1.0"}, Message: "foo.v0.1.0 is dead.  do another thing"}}},
			}},
			RuleDeprecation, `expected a maximum of one deprecation per package: "foo"`},
		{"Error/Deprecation/BadRefSchema", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()},
			Deprecations: []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations, Package: "foo", Entries: []declcfg.DeprecationEntry{
				{Reference: declcfg.PackageScopedReference{Schema: "badschema", Name: "foo.v2.0.0"}, Message: "foo.v2.0.0 doesn't exist in the first place"}}}}},
			RuleDeprecation, `cannot deprecate object declcfg.PackageScopedReference{Schema:"badschema", Name:"foo.v2.0.0"} referenced by entry 0 for package "foo": object schema unknown`},
		{"Error/Deprecation/DuplicateRef", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)}, Bundles: []declcfg.Bundle{foo()},
			Deprecations: []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations, Package: "foo", Entries: []declcfg.DeprecationEntry{
				{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: "foo.v0.1.0"}, Message: "foo.v0.1.0 is bad"},
				{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: "foo.v0.1.0"}, Message: "foo.v0.1.0 is bad"}}}}},
			RuleDeprecation, `duplicate deprecation entry declcfg.PackageScopedReference{Schema:"olm.bundle", Name:"foo.v0.1.0"} for package "foo"`},
		{"Error/InvalidReleaseVersion", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)},
			Bundles: []declcfg.Bundle{foo(withProps(propPackageRelease("foo", "0.1.0", "!!!")))}},
			RuleRelease, `error parsing bundle "foo.v0.1.0" release version "!!!": invalid release "!!!": segment 0: Invalid character(s) found in prerelease "!!!"`},
		{"Error/InvalidBundleNormalizedName", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(declcfg.ChannelEntry{Name: "foo.v0.1.0-alpha.1.0.0"})},
			Bundles: []declcfg.Bundle{foo(withProps(propPackageRelease("foo", "0.1.0", "alpha.1.0.0")), func(b *declcfg.Bundle) { b.Name = "foo.v0.1.0-alpha.1.0.0" })}},
			RuleReleaseName, `name "foo.v0.1.0-alpha.1.0.0" does not match normalized name "foo-v0.1.0-alpha.1.0.0"`},
		{"Success/ValidBundleReleaseVersion", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(declcfg.ChannelEntry{Name: "foo-v0.1.0-alpha.1.0.0"})},
			Bundles: []declcfg.Bundle{foo(withProps(propPackageRelease("foo", "0.1.0", "alpha.1.0.0")), func(b *declcfg.Bundle) { b.Name = "foo-v0.1.0-alpha.1.0.0" })}},
			"", ""},
		{"Error/BundleReleaseWithBuildMetadata", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(declcfg.ChannelEntry{Name: "foo.v0.1.0+alpha.1.0.0-0.0.1"})},
			Bundles: []declcfg.Bundle{foo(withProps(propPackageRelease("foo", "0.1.0+alpha.1.0.0", "0.0.1")), func(b *declcfg.Bundle) { b.Name = "foo.v0.1.0+alpha.1.0.0-0.0.1" })}},
			RuleBuildAndRelease, `cannot use build metadata in version with a release version`},
		{"Error/BundleImageInvalidPullSpecUnsupportedDigestSsha256", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)},
			Bundles: []declcfg.Bundle{foo(func(b *declcfg.Bundle) {
				b.Image = "quay.io/operator-framework/foo-bundle@ssha256:abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234"
			})}}, RuleImage, "invalid image pull spec"},
		{"Error/BundleImageInvalidPullSpecUnsupportedDigestMd5", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)},
			Bundles: []declcfg.Bundle{foo(func(b *declcfg.Bundle) {
				b.Image = "quay.io/operator-framework/foo-bundle@md5:abcd1234abcd1234abcd1234abcd1234"
			})}}, RuleImage, "invalid image pull spec"},
		{"Error/BundleRelatedImageInvalidPullSpecSsha256", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)},
			Bundles: []declcfg.Bundle{foo(func(b *declcfg.Bundle) {
				b.RelatedImages = []declcfg.RelatedImage{{Name: "bundle", Image: testBundleImage("foo", "0.1.0")},
					{Name: "operator", Image: "quay.io/operator-framework/my-operator@ssha256:abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234"}}
			})}}, RuleImage, `relatedImages[1].image: invalid image pull spec`},
		{"Success/BundleImageValidSha256Digest", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)},
			Bundles: []declcfg.Bundle{foo(func(b *declcfg.Bundle) {
				b.Image = "quay.io/operator-framework/foo-bundle@sha256:abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234"
				b.RelatedImages = []declcfg.RelatedImage{{Name: "bundle", Image: b.Image}}
			})}}, "", ""},
		{"Success/BundleImageValidTagWithDigest", declcfg.DeclarativeConfig{Packages: withPkg, Channels: []declcfg.Channel{alpha(e010)},
			Bundles: []declcfg.Bundle{foo(func(b *declcfg.Bundle) {
				b.Image = "quay.io/operator-framework/foo-bundle:v0.1.0@sha256:abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234"
				b.RelatedImages = []declcfg.RelatedImage{{Name: "bundle", Image: b.Image}}
			})}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Convert(&tc.cfg)
			if tc.rule == "" {
				if errs := errorsOf(c); len(errs) > 0 {
					t.Fatalf("want no error, got:\n%s", strings.Join(errs, "\n"))
				}
				return
			}
			requireProblem(t, c, tc.rule, tc.msg)
			if c.Valid() {
				t.Error("Valid() = true")
			}
		})
	}
}

// TestValidators ports the bundle, channel and package cases of
// operator-registry alpha/model/model_test.go TestValidators that a
// DeclarativeConfig can express (the others check the linking of the
// Go structs).
func TestValidators(t *testing.T) {
	ok := func(mod func(*declcfg.DeclarativeConfig)) *declcfg.DeclarativeConfig {
		cfg := &declcfg.DeclarativeConfig{
			Packages: []declcfg.Package{newTestPackage("anakin", "light")},
			Channels: []declcfg.Channel{newTestChannel("anakin", "light",
				declcfg.ChannelEntry{Name: "anakin.v0.0.1"},
				declcfg.ChannelEntry{Name: "anakin.v0.1.0", Replaces: "anakin.v0.0.1"})},
			Bundles: []declcfg.Bundle{
				simpleBundle("anakin", "anakin.v0.0.1", "0.0.1"),
				simpleBundle("anakin", "anakin.v0.1.0", "0.1.0"),
			},
		}
		if mod != nil {
			mod(cfg)
		}
		return cfg
	}
	entry := func(cfg *declcfg.DeclarativeConfig) *declcfg.ChannelEntry { return &cfg.Channels[0].Entries[1] }
	bundle := func(cfg *declcfg.DeclarativeConfig) *declcfg.Bundle { return &cfg.Bundles[1] }
	for _, tc := range []struct {
		name string // upstream case
		cfg  *declcfg.DeclarativeConfig
		rule string
		msg  string
	}{
		{"Package/Success/Valid", ok(nil), "", ""},
		{"Package/Error/DuplicateBundleVersions", ok(func(c *declcfg.DeclarativeConfig) {
			bundle(c).Properties = []declcfg.Property{propPackageValue("anakin", "0.0.1")}
		}), RuleDuplicateVersion, `duplicate versions found in bundles: [{0.0.1: [anakin.v0.0.1, anakin.v0.1.0]}]`},
		{"Package/Error/DuplicateBundleVersionsReleases", ok(func(c *declcfg.DeclarativeConfig) {
			c.Channels[0].Entries = append(c.Channels[0].Entries,
				declcfg.ChannelEntry{Name: "anakin-v0.0.1-100", Replaces: "anakin.v0.1.0"},
				declcfg.ChannelEntry{Name: "anakin-v0.0.2-100", Skips: []string{"anakin-v0.0.1-100"}, Replaces: "anakin-v0.0.1-100"})
			b1 := simpleBundle("anakin", "anakin-v0.0.1-100", "0.0.1")
			b1.Properties = []declcfg.Property{propPackageRelease("anakin", "0.0.1", "100")}
			b2 := simpleBundle("anakin", "anakin-v0.0.2-100", "0.0.1")
			b2.Properties = []declcfg.Property{propPackageRelease("anakin", "0.0.1", "100")}
			c.Bundles = append(c.Bundles, b1, b2)
		}), RuleDuplicateVersion, `duplicate versions found in bundles: [{0.0.1-100: [anakin-v0.0.1-100, anakin-v0.0.2-100]}]`},
		{"Package/Error/BundleReleaseNormalizedName", ok(func(c *declcfg.DeclarativeConfig) {
			c.Channels[0].Entries[1].Name = "anakin.v0.0.1.alpha1"
			bundle(c).Name = "anakin.v0.0.1.alpha1"
			bundle(c).Properties = []declcfg.Property{propPackageRelease("anakin", "0.0.1", "alpha1")}
		}), RuleReleaseName, `name "anakin.v0.0.1.alpha1" does not match normalized name "anakin-v0.0.1-alpha1"`},
		{"Package/Error/NoDefaultChannel", ok(func(c *declcfg.DeclarativeConfig) { c.Packages[0].DefaultChannel = "" }),
			RuleDefaultChannel, "default channel must be set"},
		{"Package/Error/NoChannels", &declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage("anakin", "")}},
			RuleNoChannels, "package must contain at least one channel"},
		{"Channel/Error/NoBundles", ok(func(c *declcfg.DeclarativeConfig) {
			c.Channels = append(c.Channels, newTestChannel("anakin", "dark"))
		}), RuleChannelEntries, "channel must contain at least one bundle"},
		{"Channel/Error/InvalidHead", ok(func(c *declcfg.DeclarativeConfig) { entry(c).Replaces = "" }),
			RuleHead, "multiple channel heads found in graph: anakin.v0.0.1, anakin.v0.1.0"},
		{"Bundle/Success/ReplacesNotInChannel", ok(func(c *declcfg.DeclarativeConfig) { c.Channels[0].Entries[0].Replaces = "anakin.v0.0.0" }), "", ""},
		{"Bundle/Success/NoBundleImage/HaveBundleData", ok(func(c *declcfg.DeclarativeConfig) {
			bundle(c).Image = ""
			bundle(c).Properties = append(bundle(c).Properties, bundleObjectProp("testdata"))
		}), "", ""},
		{"Bundle/Error/NoBundleImage", ok(func(c *declcfg.DeclarativeConfig) {
			bundle(c).Image = ""
			bundle(c).Properties = append(bundle(c).Properties, propGVKValue("skywalker.me", "v1alpha1", "PodRacer"))
		}), RuleImage, "bundle image must be set"},
		{"Bundle/Error/NoName", ok(func(c *declcfg.DeclarativeConfig) {
			c.Channels[0].Entries = append(c.Channels[0].Entries, declcfg.ChannelEntry{Name: "", Replaces: "anakin.v0.1.0"})
			c.Bundles = append(c.Bundles, simpleBundle("anakin", "", "0.2.0"))
		}), RuleBundleName, "name must be set"},
		{"Bundle/Error/InvalidProperty", ok(func(c *declcfg.DeclarativeConfig) {
			bundle(c).Properties = append(bundle(c).Properties, declcfg.Property{Type: "broken", Value: json.RawMessage("")})
		}), RuleProperties, `parse property[1] of type "broken": unexpected end of JSON input`},
		{"Bundle/Error/EmptySkipsValue", ok(func(c *declcfg.DeclarativeConfig) { entry(c).Skips = []string{""} }),
			RuleSkips, "skip[0] is empty"},
		{"Bundle/Success/ValidSkipRange", ok(func(c *declcfg.DeclarativeConfig) { entry(c).SkipRange = ">=1.0.0 <2.0.0" }), "", ""},
		{"Bundle/Error/InvalidSkipRange/LeadingV", ok(func(c *declcfg.DeclarativeConfig) { entry(c).SkipRange = ">v0.1.0" }),
			RuleSkipRange, `invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0"`},
		{"Bundle/Error/InvalidSkipRange/LeadingZero", ok(func(c *declcfg.DeclarativeConfig) { entry(c).SkipRange = ">1.00.1" }),
			RuleSkipRange, `invalid skipRange ">1.00.1": Could not parse Range ">1.00.1": Could not parse version "1.00.1" in ">1.00.1": Minor number must not contain leading zeroes "00"`},
		{"Bundle/Error/MissingPackage", ok(func(c *declcfg.DeclarativeConfig) { bundle(c).Properties = []declcfg.Property{} }),
			RulePackageProperty, `must have exactly 1 "olm.package" property`},
		{"Bundle/Error/MultiplePackages", ok(func(c *declcfg.DeclarativeConfig) {
			bundle(c).Properties = []declcfg.Property{propPackageValue("anakin", "0.1.0"), propPackageValue("anakin", "0.2.0")}
		}), RulePackageProperty, `must have exactly 1 "olm.package" property`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Convert(tc.cfg)
			if tc.rule == "" {
				if errs := errorsOf(c); len(errs) > 0 {
					t.Fatalf("want no error, got:\n%s", strings.Join(errs, "\n"))
				}
				return
			}
			requireProblem(t, c, tc.rule, tc.msg)
		})
	}
}
