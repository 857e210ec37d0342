package upstreamoracle

import "encoding/json"

// The fixture catalogs live under <data>/fixtures; a CatalogRef's Source
// "fixtures/v1/genpackage" is that directory.

// fixturePkg is the package of operator-controller's resolver tests
// (they name it pkg-<random>; genPackage, genBundle and bundleName build
// it).
const fixturePkg = "pkg-fixture"

func fixtureBundle(v string) string { return fixturePkg + ".v" + v }

// upstream test citations (operator-controller df2c201d,
// internal/operator-controller/resolve/).
const (
	catalogTest    = "operator-controller internal/operator-controller/resolve/catalog_test.go "
	validationTest = "operator-controller internal/operator-controller/resolve/validation_test.go "
)

func ref(name string, prio int32, src string) CatalogRef {
	return CatalogRef{Name: name, Priority: prio, Source: "fixtures/" + src}
}

// V1FixtureSets are the catalog sets of the OLM v1 fixtures.
func V1FixtureSets() []CatalogSet {
	abc := []CatalogRef{ref("a", 0, "v1/unrelated"), ref("b", 0, "v1/unrelated"), ref("c", 0, "v1/genpackage")}
	return []CatalogSet{
		{Name: "v1-genpackage-in-c", Catalogs: abc},
		{Name: "v1-not-found", Catalogs: []CatalogRef{ref("a", 0, "v1/unrelated"), ref("b", 0, "v1/unrelated"), ref("c", 0, "v1/unrelated")}},
		{Name: "v1-variations", Catalogs: []CatalogRef{
			ref("a", 0, "v1/unrelated"), ref("b", 0, "v1/variations-b"), ref("c", 0, "v1/variations-c"),
			ref("d", 0, "v1/variations-d"), ref("e", 0, "v1/variations-e"), ref("f", 0, "v1/variations-f"),
		}},
		{Name: "v1-genpackage-in-a-b", Catalogs: []CatalogRef{ref("a", 0, "v1/genpackage"), ref("b", 0, "v1/genpackage")}},
		{Name: "v1-label-a-unrelated", Catalogs: []CatalogRef{ref("a", 0, "v1/unrelated"), ref("b", 0, "v1/genpackage")}},
		{Name: "v1-unequal-priority", Catalogs: []CatalogRef{ref("a", 1, "v1/unequal-a"), ref("b", 0, "v1/unequal-b")}},
		{Name: "v1-multiple-priority", Catalogs: []CatalogRef{ref("a", 1, "v1/genpackage"), ref("b", 0, "v1/genpackage"), ref("c", 1, "v1/genpackage")}},
		{Name: "v1-all-disabled", Catalogs: []CatalogRef{
			{Name: "a", Source: "fixtures/v1/genpackage", Unavailable: true},
			{Name: "b", Source: "fixtures/v1/genpackage", Unavailable: true},
		}},
		{Name: "v1-some-disabled", Catalogs: []CatalogRef{
			{Name: "enabledcatalog", Priority: 1, Source: "fixtures/v1/genpackage"},
			{Name: "disabledcatalog", Priority: 0, Source: "fixtures/v1/genpackage", Unavailable: true},
		}},
		{Name: "v1-not-serving", Catalogs: []CatalogRef{
			{Name: "a", Source: "fixtures/v1/genpackage", NotServing: true},
			{Name: "b", Source: "fixtures/v1/genpackage"},
		}},
		{Name: "v1-nodeps", Catalogs: []CatalogRef{ref("fake-catalog", 0, "v1/nodeps")}},
	}
}

// V1FixtureQueries reproduce operator-controller's own resolver tests
// (each cites one) on catalogs holding what the test's catalog walker
// returns; the package is pkg-fixture instead of a random name.
func V1FixtureQueries() []V1Query {
	cp := CatalogProvided
	inst := func(v string) *V1Installed {
		return &V1Installed{Name: fixtureBundle(v), Version: v}
	}
	sel := func(s string) json.RawMessage { return json.RawMessage(s) }
	qs := []V1Query{
		{ID: "invalid-version-range", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestInvalidClusterExtensionVersionRange", Package: fixturePkg, VersionRange: "foobar", UpgradeConstraintPolicy: cp},
		{ID: "not-serving", Set: "v1-not-serving", Cites: catalogTest + "TestErrorGettingPackage (the error here: catalogmetadata/client validateCatalog)", Package: fixturePkg, UpgradeConstraintPolicy: cp},
		{ID: "package-does-not-exist", Set: "v1-not-found", Cites: catalogTest + "TestPackageDoesNotExist", Package: fixturePkg, UpgradeConstraintPolicy: cp},
		{ID: "package-exists", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestPackageExists", Package: fixturePkg, UpgradeConstraintPolicy: cp},
		{ID: "version-does-not-exist", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestVersionDoesNotExist", Package: fixturePkg, VersionRange: "4.0.0", UpgradeConstraintPolicy: cp},
		{ID: "version-exists", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestVersionExists", Package: fixturePkg, VersionRange: ">=1.0.0 <2.0.0", UpgradeConstraintPolicy: cp},
		{ID: "channel-does-not-exist", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestChannelDoesNotExist", Package: fixturePkg, Channels: []string{"stable"}, UpgradeConstraintPolicy: cp},
		{ID: "channel-exists", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestChannelExists", Package: fixturePkg, Channels: []string{"beta"}, UpgradeConstraintPolicy: cp},
		{ID: "channel-exists-but-not-version", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestChannelExistsButNotVersion", Package: fixturePkg, Channels: []string{"beta"}, VersionRange: "3.0.0", UpgradeConstraintPolicy: cp},
		{ID: "version-exists-but-not-channel", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestVersionExistsButNotChannel", Package: fixturePkg, Channels: []string{"stable"}, VersionRange: "1.0.0", UpgradeConstraintPolicy: cp},
		{ID: "channel-and-version-exist", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestChannelAndVersionExist", Package: fixturePkg, Channels: []string{"alpha"}, VersionRange: "0.1.0", UpgradeConstraintPolicy: cp},
		{ID: "prefer-non-deprecated", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestPreferNonDeprecated", Package: fixturePkg, VersionRange: ">=0.1.0 <=1.0.0", UpgradeConstraintPolicy: cp},
		{ID: "accept-deprecated", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestAcceptDeprecated", Package: fixturePkg, VersionRange: ">=1.0.0 <=1.0.1", UpgradeConstraintPolicy: cp},
		{ID: "variations-deprecated-in-all-but-one", Set: "v1-variations", Cites: catalogTest + "TestPackageVariationsBetweenCatalogs/when bundle candidates for a package are deprecated in all but one catalog", Package: fixturePkg, VersionRange: ">=1.0.0 <=1.0.3", UpgradeConstraintPolicy: cp},
		{ID: "variations-deprecated-in-multiple", Set: "v1-variations", Cites: catalogTest + "TestPackageVariationsBetweenCatalogs/when bundle candidates are found and deprecated in multiple catalogs", Package: fixturePkg, VersionRange: ">=1.0.0 <=1.0.1", UpgradeConstraintPolicy: cp},
		{ID: "variations-not-deprecated-in-multiple", Set: "v1-variations", Cites: catalogTest + "TestPackageVariationsBetweenCatalogs/when bundle candidates are found and not deprecated in multiple catalogs", Package: fixturePkg, VersionRange: ">=1.0.0 <=1.0.4", UpgradeConstraintPolicy: cp},
		{ID: "variations-same-catalog", Set: "v1-variations", Cites: catalogTest + "TestPackageVariationsBetweenCatalogs/highest semver bundle is chosen when candidates are all from the same catalog", Package: fixturePkg, VersionRange: ">=1.0.4 <=1.0.5", UpgradeConstraintPolicy: cp},
		{ID: "upgrade-found-legacy", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestUpgradeFoundLegacy", Package: fixturePkg, Installed: inst("0.1.0"), UpgradeConstraintPolicy: cp},
		{ID: "upgrade-not-found-legacy", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestUpgradeNotFoundLegacy", Package: fixturePkg, Installed: inst("0.1.0"), VersionRange: "<1.0.0 >=2.0.0", UpgradeConstraintPolicy: cp},
		{ID: "downgrade-found", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestDowngradeFound", Package: fixturePkg, Installed: inst("1.0.2"), VersionRange: "<1.0.2", UpgradeConstraintPolicy: SelfCertified},
		{ID: "downgrade-not-found", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestDowngradeNotFound", Package: fixturePkg, Installed: inst("1.0.2"), VersionRange: ">0.1.0 <1.0.0", UpgradeConstraintPolicy: SelfCertified},
		{ID: "selector-bad-operator", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestInvalidClusterExtensionCatalogMatchExpressions", Package: fixturePkg, UpgradeConstraintPolicy: cp,
			Selector: sel(`{"matchExpressions":[{"key":"name","operator":"bad","values":["value"]}]}`)},
		{ID: "selector-bad-label-name", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestInvalidClusterExtensionCatalogMatchLabelsName", Package: fixturePkg, UpgradeConstraintPolicy: cp,
			Selector: sel(`{"matchLabels":{"":"value"}}`)},
		{ID: "selector-bad-label-value", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestInvalidClusterExtensionCatalogMatchLabelsValue", Package: fixturePkg, UpgradeConstraintPolicy: cp,
			Selector: sel(`{"matchLabels":{"name":"&value"}}`)},
		{ID: "selector-match-label", Set: "v1-genpackage-in-a-b", Cites: catalogTest + "TestClusterExtensionMatchLabel", Package: fixturePkg, UpgradeConstraintPolicy: cp,
			Selector: sel(`{"matchLabels":{"olm.operatorframework.io/metadata.name":"b"}}`)},
		{ID: "selector-no-match-label", Set: "v1-label-a-unrelated", Cites: catalogTest + "TestClusterExtensionNoMatchLabel", Package: fixturePkg, UpgradeConstraintPolicy: cp,
			Selector: sel(`{"matchLabels":{"olm.operatorframework.io/metadata.name":"a"}}`)},
		{ID: "unequal-priority", Set: "v1-unequal-priority", Cites: catalogTest + "TestUnequalPriority", Package: fixturePkg, UpgradeConstraintPolicy: cp},
		{ID: "multiple-priority", Set: "v1-multiple-priority", Cites: catalogTest + "TestMultiplePriority", Package: fixturePkg, VersionRange: ">=1.0.0 <=1.0.1", UpgradeConstraintPolicy: cp},
		{ID: "multiple-channels", Set: "v1-genpackage-in-c", Cites: catalogTest + "TestMultipleChannels", Package: fixturePkg, Channels: []string{"beta", "alpha"}, UpgradeConstraintPolicy: cp},
		{ID: "all-catalogs-disabled", Set: "v1-all-disabled", Cites: catalogTest + "TestAllCatalogsDisabled", Package: fixturePkg, VersionRange: ">=1.0.0", UpgradeConstraintPolicy: cp},
		{ID: "some-catalogs-disabled", Set: "v1-some-disabled", Cites: catalogTest + "TestSomeCatalogsDisabled", Package: fixturePkg, VersionRange: ">=1.0.0", UpgradeConstraintPolicy: cp},
	}
	for _, p := range []string{"no-dependencies-package", "package-required-test", "gvk-required-test", "constraint-test", "two-dependencies-test"} {
		qs = append(qs, V1Query{ID: "nodeps-" + p, Set: "v1-nodeps", Cites: validationTest + "TestNoDependencyValidation (two-dependencies-test: the first dependency property is named)", Package: p, UpgradeConstraintPolicy: cp})
	}
	for i := range qs {
		qs[i].ID = "fixture/" + qs[i].ID
	}
	return qs
}

// V0FixtureSets are the catalog sets of the OLM v0 fixtures.
func V0FixtureSets() []CatalogSet {
	return []CatalogSet{
		{Name: "v0-prohibited", GlobalNamespace: "set-v0-prohibited", Catalogs: []CatalogRef{ref("prohibited", 0, "v0/prohibited")}},
		// deps-x (priority 0) holds app and dep 1.0.0, 1.1.0; deps-y
		// (priority 10) holds dep 1.0.0, 2.0.0.
		{Name: "v0-deps", GlobalNamespace: "set-v0-deps", Catalogs: []CatalogRef{ref("deps-x", 0, "v0/deps-x"), ref("deps-y", 10, "v0/deps-y")}},
	}
}

// V0FixtureQueries: every installed bundle (and a new install) of every
// Prohibited fixture package and channel, and the dependency fixture's
// installs of app.
func V0FixtureQueries() []V0Query {
	type pc struct {
		pkg, channel string
		bundles      []string
	}
	prohibited := []pc{
		{"p-replaces", "stable", []string{"1.0.0", "2.0.0", "3.0.0"}},
		{"p-skips", "stable", []string{"1.0.0", "2.0.0", "3.0.0"}},
		{"p-skiprange", "stable", []string{"1.0.0", "2.0.0", "3.0.0"}},
		{"p-head", "stable", []string{"1.0.0", "2.0.0"}},
		{"p-branch", "stable", []string{"1.0.0", "1.5.0", "2.0.0", "3.0.0"}},
		{"p-branch", "fast", []string{"1.0.0", "2.0.0"}},
	}
	// Prohibited bundles (olm.deprecated) of the fixture.
	legacyDeprecated := map[string]bool{"p-replaces.v2.0.0": true, "p-skips.v2.0.0": true, "p-skiprange.v2.0.0": true, "p-head.v2.0.0": true, "p-branch.v2.0.0": true}
	cite := "operator-lifecycle-manager pkg/controller/registry/resolver/variable_types.go NewBundleVariableFromOperator (olm.deprecated: Prohibited)"
	var qs []V0Query
	for _, p := range prohibited {
		for _, v := range append([]string{""}, p.bundles...) {
			inst := ""
			if v != "" {
				inst = p.pkg + ".v" + v
			}
			qs = append(qs, V0Query{Set: "v0-prohibited", Cites: cite,
				Subscriptions: []V0Subscription{{Package: p.pkg, Channel: p.channel, Source: "prohibited", Installed: inst}}})
			if legacyDeprecated[inst] {
				qs = append(qs, V0Query{Set: "v0-prohibited", Cites: cite + "; the installed CSV carries olm.deprecated",
					Subscriptions: []V0Subscription{{Package: p.pkg, Channel: p.channel, Source: "prohibited", Installed: inst, InstalledDeprecated: true}}})
			}
		}
	}
	deps := "operator-lifecycle-manager pkg/controller/registry/resolver/resolver.go getBundleVariables (dependency providers, FindPreferred)"
	for _, inst := range []string{"", "app.v1.0.0", "app.v2.0.0"} {
		qs = append(qs, V0Query{Set: "v0-deps", Cites: deps, Subscriptions: []V0Subscription{{Package: "app", Channel: "stable", Source: "deps-x", Installed: inst}}})
	}
	// app 1.0.0 installed with dep 1.0.0 from deps-x installed too
	qs = append(qs, V0Query{Set: "v0-deps", Cites: deps, Subscriptions: []V0Subscription{
		{Package: "app", Channel: "stable", Source: "deps-x", Installed: "app.v1.0.0"},
		{Package: "dep", Channel: "stable", Source: "deps-x", Installed: "dep.v1.0.0"},
	}})
	for i := range qs {
		qs[i].ID = "fixture/" + v0ID(qs[i])
	}
	return qs
}
