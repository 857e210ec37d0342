package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// v1SetPackage is a one-package catalog: bundles by version (each with
// extra properties), the versions whose bundles are deprecated
// (olm.deprecations), one channel "alpha" listing them all without edges.
func v1SetPackage(pkg string, versions []string, deprecated []string, props map[string][]declcfg.Property) *Package {
	cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: pkg}}}
	ch := declcfg.Channel{Schema: declcfg.SchemaChannel, Package: pkg, Name: "alpha"}
	for _, v := range versions {
		name := testBundleName(pkg, v)
		ch.Entries = append(ch.Entries, declcfg.ChannelEntry{Name: name})
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: pkg, Name: name,
			Properties: append([]declcfg.Property{propPackageValue(pkg, v)}, props[v]...)})
	}
	cfg.Channels = []declcfg.Channel{ch}
	if len(deprecated) > 0 {
		d := declcfg.Deprecation{Schema: declcfg.SchemaDeprecations, Package: pkg}
		for _, v := range deprecated {
			d.Entries = append(d.Entries, declcfg.DeprecationEntry{
				Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: testBundleName(pkg, v)},
				Message:   "bundle " + testBundleName(pkg, v) + " is deprecated"})
		}
		cfg.Deprecations = []declcfg.Deprecation{d}
	}
	return Convert(cfg).Package(pkg)
}

func depProp(typ string) declcfg.Property {
	return declcfg.Property{Type: typ, Value: json.RawMessage(`{"packageName":"other","versionRange":">=1.0.0"}`)}
}

// TestV1Refusal ports operator-controller internal/operator-controller/
// resolve/validation_test.go TestNoDependencyValidation, plus the order
// rule: the first dependency property in the bundle's order is named.
func TestV1Refusal(t *testing.T) {
	const pkg = "p"
	gvk := declcfg.Property{Type: "olm.gvk.required", Value: json.RawMessage(`{"group":"g","kind":"K","version":"v1"}`)}
	for _, tc := range []struct {
		name  string
		props []declcfg.Property
		want  string // property named, "" for none
	}{
		{"package with no dependencies", nil, ""},
		{"package with olm.package.required property", []declcfg.Property{depProp("olm.package.required")}, "olm.package.required"},
		{"package with olm.gvk.required property", []declcfg.Property{gvk}, "olm.gvk.required"},
		{"package with olm.constraint property", []declcfg.Property{{Type: "olm.constraint", Value: json.RawMessage(`{"cel":{"rule":"true"}}`)}}, "olm.constraint"},
		{"the first in the bundle's order is named (gvk before package)", []declcfg.Property{gvk, depProp("olm.package.required")}, "olm.gvk.required"},
		{"the first in the bundle's order is named (package before gvk)", []declcfg.Property{depProp("olm.package.required"), gvk}, "olm.package.required"},
		{"olm.label.required is not a refused dependency", []declcfg.Property{{Type: "olm.label.required", Value: json.RawMessage(`{"label":"x"}`)}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v1SetPackage(pkg, []string{"1.0.0"}, nil, map[string][]declcfg.Property{"1.0.0": tc.props})
			b := p.Bundle(testBundleName(pkg, "1.0.0"))
			ref := b.V1Refusal()
			if tc.want == "" {
				if ref != nil {
					t.Fatalf("refusal %+v, want none", ref)
				}
				return
			}
			want := fmt.Sprintf(`validating bundle "p.v1.0.0": bundle "p.v1.0.0" has a dependency declared via property %q which is currently not supported`, tc.want)
			if ref == nil || ref.Property != tc.want || ref.Bundle != b.Name || ref.Message != want {
				t.Fatalf("refusal %+v, want property %s, message %q", ref, tc.want, want)
			}
		})
	}
}

// TestResolveV1Refused: the validation runs on the pick; a refused pick
// fails the resolution, with no fallback to an older bundle, and the
// candidates stay listed.
func TestResolveV1Refused(t *testing.T) {
	const pkg = "p"
	p := v1SetPackage(pkg, []string{"1.0.0", "2.0.0"}, nil, map[string][]declcfg.Property{"2.0.0": {depProp("olm.package.required")}})
	for _, tc := range []struct {
		name    string
		q       V1Query
		pick    string
		refused string
	}{
		{"the highest declares a dependency: refused, no fallback", V1Query{}, "", "p.v2.0.0"},
		{"a version range that excludes it resolves the older bundle", V1Query{VersionRange: "<2.0.0"}, "p.v1.0.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := p.ResolveV1(tc.q)
			got := ""
			if r.Pick != nil {
				got = r.Pick.Name
			}
			if got != tc.pick {
				t.Fatalf("pick %q, want %q (error %q)", got, tc.pick, r.Error)
			}
			if tc.refused == "" {
				if r.Refusal != nil || r.Error != "" {
					t.Fatalf("refusal %+v, error %q", r.Refusal, r.Error)
				}
				return
			}
			if r.Refusal == nil || r.Refusal.Bundle != tc.refused || r.Refusal.Property != "olm.package.required" || r.Error != r.Refusal.Message {
				t.Fatalf("refusal %+v, error %q", r.Refusal, r.Error)
			}
			if !strings.HasPrefix(r.Error, `validating bundle "p.v2.0.0": `) {
				t.Errorf("error %q", r.Error)
			}
			if want := []string{"p.v2.0.0", "p.v1.0.0"}; !slices.Equal(candNames(r), want) {
				t.Errorf("candidates %q, want %q", candNames(r), want)
			}
		})
	}
}

// TestResolveV1Set ports the cross-catalog cases of operator-controller
// internal/operator-controller/resolve/catalog_test.go
// (TestPackageVariationsBetweenCatalogs, TestUnequalPriority,
// TestMultiplePriority, TestPackageDoesNotExist, TestValidationFailed)
// and adds the order of the rules: deprecation before priority, a tie
// at the top keeps every kept catalog, validation after the choice.
func TestResolveV1Set(t *testing.T) {
	const pkg = "pkg"
	bn := func(v string) string { return testBundleName(pkg, v) }
	one := func(v string, deprecated bool, props ...declcfg.Property) *Package {
		var dep []string
		if deprecated {
			dep = []string{v}
		}
		return v1SetPackage(pkg, []string{v}, dep, map[string][]declcfg.Property{v: props})
	}
	// TestPackageVariationsBetweenCatalogs's catalogs a..f.
	variations := []V1CatalogMember{
		{Name: "a"},
		{Name: "b", Package: one("1.0.0", true)},
		{Name: "c", Package: one("1.0.1", true)},
		{Name: "d", Package: one("1.0.2", false)},
		{Name: "e", Package: one("1.0.3", true)},
		{Name: "f", Package: v1SetPackage(pkg, []string{"1.0.4", "1.0.5"}, nil, nil)},
	}
	gen := genPackage(pkg)
	for _, tc := range []struct {
		name    string
		members []V1CatalogMember
		q       V1Query
		pick    string
		catalog string
		err     string
	}{
		{"TestPackageVariationsBetweenCatalogs: deprecated in all but one catalog", variations, V1Query{VersionRange: ">=1.0.0 <=1.0.3"}, bn("1.0.2"), "d", ""},
		{"TestPackageVariationsBetweenCatalogs: deprecated in multiple catalogs", variations, V1Query{VersionRange: ">=1.0.0 <=1.0.1"}, "", "",
			`found bundles for package "pkg" matching version ">=1.0.0 <=1.0.1" in multiple catalogs with the same priority [b c]`},
		{"TestPackageVariationsBetweenCatalogs: not deprecated in multiple catalogs", variations, V1Query{VersionRange: ">=1.0.0 <=1.0.4"}, "", "",
			`found bundles for package "pkg" matching version ">=1.0.0 <=1.0.4" in multiple catalogs with the same priority [d f]`},
		{"TestPackageVariationsBetweenCatalogs: highest semver in one catalog", variations, V1Query{VersionRange: ">=1.0.4 <=1.0.5"}, bn("1.0.5"), "f", ""},
		{"TestUnequalPriority", []V1CatalogMember{{Name: "a", Priority: 1, Package: one("1.0.0", false)}, {Name: "b", Package: one("1.1.0", false)}}, V1Query{}, bn("1.0.0"), "a", ""},
		{"TestMultiplePriority: a tie at the top leaves every kept catalog", []V1CatalogMember{{Name: "a", Priority: 1, Package: gen}, {Name: "b", Package: gen}, {Name: "c", Priority: 1, Package: gen}},
			V1Query{VersionRange: ">=1.0.0 <=1.0.1"}, "", "", `found bundles for package "pkg" matching version ">=1.0.0 <=1.0.1" in multiple catalogs with the same priority [a b c]`},
		{"TestPackageDoesNotExist", []V1CatalogMember{{Name: "a"}}, V1Query{Package: pkg}, "", "", `no bundles found for package "pkg"`},
		{"deprecation before priority: a non-deprecated bundle of a lower-priority catalog wins",
			[]V1CatalogMember{{Name: "high", Priority: 10, Package: one("2.0.0", true)}, {Name: "low", Priority: -5, Package: one("1.0.0", false)}}, V1Query{}, bn("1.0.0"), "low", ""},
		{"deprecation before priority, in the other walking order",
			[]V1CatalogMember{{Name: "low", Priority: -5, Package: one("1.0.0", false)}, {Name: "high", Priority: 10, Package: one("2.0.0", true)}}, V1Query{}, bn("1.0.0"), "low", ""},
		{"priority before version: the higher-priority catalog's lower version wins",
			[]V1CatalogMember{{Name: "a", Package: one("9.0.0", false)}, {Name: "z", Priority: 1, Package: one("1.0.0", false)}}, V1Query{}, bn("1.0.0"), "z", ""},
		{"a tie with the installed prefix and channels",
			[]V1CatalogMember{{Name: "y", Package: genPackage(pkg)}, {Name: "x", Package: genPackage(pkg)}},
			V1Query{Installed: &Installed{Name: bn("0.1.0"), Version: "0.1.0"}, Channels: []string{"alpha"}}, "", "",
			`error upgrading from currently installed version "0.1.0": found bundles for package "pkg" in channels [alpha] in multiple catalogs with the same priority [x y]`},
		{"none with the installed prefix",
			[]V1CatalogMember{{Name: "x", Package: genPackage(pkg)}, {Name: "y"}},
			V1Query{Installed: &Installed{Name: bn("3.0.0"), Version: "3.0.0"}, Channels: []string{"beta"}}, "", "",
			`error upgrading from currently installed version "3.0.0": no bundles found for package "pkg" in channels [beta]`},
		{"the winner is validated after the choice: no fallback to another catalog",
			[]V1CatalogMember{{Name: "a", Priority: 1, Package: one("2.0.0", false, depProp("olm.gvk.required"))}, {Name: "b", Package: one("1.0.0", false)}}, V1Query{}, "", "a",
			`validating bundle "pkg.v2.0.0": bundle "pkg.v2.0.0" has a dependency declared via property "olm.gvk.required" which is currently not supported`},
		{"a refused bundle of a losing catalog does not matter",
			[]V1CatalogMember{{Name: "a", Package: one("2.0.0", false, depProp("olm.gvk.required"))}, {Name: "b", Priority: 1, Package: one("1.0.0", false)}}, V1Query{}, bn("1.0.0"), "b", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ResolveV1Set(tc.members, tc.q)
			if r.Error != tc.err {
				t.Fatalf("error %q, want %q", r.Error, tc.err)
			}
			got := ""
			if r.Pick != nil {
				got = r.Pick.Name
			}
			if got != tc.pick || r.Catalog != tc.catalog {
				t.Fatalf("pick %q from %q, want %q from %q", got, r.Catalog, tc.pick, tc.catalog)
			}
			if len(r.PerCatalog) != len(tc.members) || r.Semantics != SemanticsV1Set {
				t.Errorf("per catalog %+v, semantics %q", r.PerCatalog, r.Semantics)
			}
			for i, m := range tc.members {
				if pc := r.PerCatalog[i]; pc.Catalog != m.Name || pc.Priority != m.Priority || pc.Found != (m.Package != nil) {
					t.Errorf("per catalog [%d] = %+v", i, pc)
				}
			}
		})
	}
}
