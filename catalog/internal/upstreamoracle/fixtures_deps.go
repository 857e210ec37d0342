package upstreamoracle

import (
	"slices"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// OLM v0 dependency fixtures: each reproduces a test of
// operator-lifecycle-manager 992bb097 pkg/controller/registry/resolver
// (resolver_test.go) on FBC catalogs served by opm, the way a cluster
// sees them, instead of the test's static cache snapshots. Differences
// from the tests, none changing what they check: an installed CSV named
// by a test is a bundle of the Subscription's catalog (the harness builds
// the CSV from it), a test's legacy "olm.package"/"olm.gvk" dependency is
// the FBC property (olm.package.required, olm.gvk.required) the registry
// turns into it, provided APIs are olm.gvk properties, package names
// are lowercase (packageC is package-c: opm refuses others), bundles of
// one package have distinct versions (PackageCannotSelfSatisfy's opABC
// and opD are 0.9.0: opm refuses duplicate versions), and a test's
// several resolver runs with different priorities are several catalog
// sets.
const resolverTest = "operator-lifecycle-manager pkg/controller/registry/resolver/resolver_test.go "

// depFixture is one catalog set of the dependency fixtures and the
// Subscriptions queried over it (each entry one query).
type depFixture struct {
	set      string
	catalogs []CatalogRef
	cites    string
	queries  [][]V0Subscription
}

func sub(pkg, channel, source, installed string) V0Subscription {
	return V0Subscription{Package: pkg, Channel: channel, Source: source, Installed: installed}
}

// Dependency forms of the dep-forms fixture (one package each, a new
// install of each is one query): what OLM v0 picks for each range and
// constraint form, and the forms it rejects.
var depFormPackages = []string{
	"r-exact", "r-range", "r-gt", "r-or", "r-wildcard", "r-none", "r-bad-range",
	"c-package", "c-gvk", "c-cel-semver", "c-cel-bad", "c-empty", "l-required",
}

func depFixtures() []depFixture {
	one := func(name string, prio int32, dir string) []CatalogRef {
		return []CatalogRef{ref(name, prio, "v0/"+dir)}
	}
	community := func(dir string) []CatalogRef { return one("community", 0, dir) }
	newSub := func(pkg, ch, src string) []V0Subscription { return []V0Subscription{sub(pkg, ch, src, "")} }
	withTest := func(ch, src, inst, pkg2, ch2 string) []V0Subscription {
		return []V0Subscription{sub("test-package", ch, src, inst), sub(pkg2, ch2, src, "")}
	}
	forms := make([][]V0Subscription, 0, len(depFormPackages)+4)
	for _, p := range depFormPackages {
		forms = append(forms, newSub(p, "stable", "community"))
	}
	forms = append(forms,
		newSub("fallback", "stable", "community"),
		[]V0Subscription{sub("fallback", "stable", "community", "fallback.v1.0.0")},
		[]V0Subscription{sub("fallback", "stable", "community", "fallback.v1.1.0")},
		[]V0Subscription{sub("fallback", "stable", "community", "fallback.v1.0.0"), sub("dep", "stable", "community", "dep.v1.0.0")},
	)
	prioCite := resolverTest + "TestSolveOperators_CatsrcPrioritySorting"
	return []depFixture{
		{"v0-dep-package", community("dep-package"), resolverTest + "TestSolveOperators_WithPackageDependencies",
			[][]V0Subscription{withTest("alpha", "community", "test-package.v1", "another-package", "alpha")}},
		{"v0-dep-latest", community("dep-latest"), resolverTest + "TestSolveOperators_FindLatestVersionWithDependencies",
			[][]V0Subscription{withTest("alpha", "community", "test-package.v1", "another-package", "alpha")}},
		{"v0-dep-nested", community("dep-nested"), resolverTest + "TestSolveOperators_FindLatestVersionWithNestedDependencies (a dependency chain)",
			[][]V0Subscription{withTest("alpha", "community", "test-package.v1", "another-package", "alpha")}},
		{"v0-dep-gvk", community("dep-gvk"), resolverTest + "TestSolveOperators_WithGVKDependencies",
			[][]V0Subscription{withTest("alpha", "community", "test-package.v1", "another-package", "alpha")}},
		{"v0-dep-label", community("dep-label"), resolverTest + "TestSolveOperators_WithLabelDependencies",
			[][]V0Subscription{newSub("test-package", "alpha", "community")}},
		{"v0-dep-label-unsat", community("dep-label-unsat"), resolverTest + "TestSolveOperators_WithUnsatisfiableLabelDependencies",
			[][]V0Subscription{newSub("test-package", "alpha", "community")}},
		{"v0-dep-nested-gvk", []CatalogRef{ref("community", 0, "v0/dep-nested-gvk-community"), ref("certified", 0, "v0/dep-nested-gvk-certified")},
			resolverTest + "TestSolveOperators_WithNestedGVKDependencies",
			[][]V0Subscription{withTest("alpha", "community", "test-package.v1", "another-package", "alpha")}},
		{"v0-constraint-all", community("constraint-all"), resolverTest + "TestSolveOperators_OLMConstraint_CompoundAll",
			[][]V0Subscription{newSub("bar", "stable", "community")}},
		{"v0-constraint-any", community("constraint-any"), resolverTest + "TestSolveOperators_OLMConstraint_CompoundAny",
			[][]V0Subscription{newSub("bar", "stable", "community")}},
		{"v0-constraint-not", community("constraint-not"), resolverTest + "TestSolveOperators_OLMConstraint_CompoundNot",
			[][]V0Subscription{newSub("bar", "stable", "community")}},
		{"v0-constraint-unknown", community("constraint-unknown"), resolverTest + "TestSolveOperators_OLMConstraint_Unknown (a form OLM v0 rejects)",
			[][]V0Subscription{newSub("bar", "stable", "community")}},
		{"v0-dep-ignore-unsat", []CatalogRef{ref("community", 0, "v0/dep-ignore-unsat-community"), ref("certified", 0, "v0/dep-ignore-unsat-certified")},
			resolverTest + "TestSolveOperators_IgnoreUnsatisfiableDependencies (a provider passed over: its own dependency is unsatisfiable)",
			[][]V0Subscription{withTest("alpha", "community", "test-package.v1", "another-package", "alpha")}},
		{"v0-cel-gvk", community("cel-gvk"), resolverTest + "TestSolveOperators_GenericConstraint/Generic Constraint/Satisfiable GVK Dependency",
			[][]V0Subscription{newSub("test-package", "stable", "community")}},
		{"v0-cel-gvk-unsat", community("cel-gvk-unsat"), resolverTest + "TestSolveOperators_GenericConstraint/Generic Constraint/NotSatisfiable GVK Dependency",
			[][]V0Subscription{newSub("test-package", "stable", "community")}},
		{"v0-cel-package", community("cel-package"), resolverTest + "TestSolveOperators_GenericConstraint/Generic Constraint/Satisfiable Package Dependency (semver_compare)",
			[][]V0Subscription{newSub("test-package", "stable", "community")}},
		{"v0-dep-default-channel", community("dep-default-channel"), resolverTest + "TestSolveOperators_PreferDefaultChannelInResolutionForTransitiveDependencies",
			[][]V0Subscription{newSub("test-package", "alpha", "community")}},
		{"v0-dep-self-satisfy", []CatalogRef{ref("community", 0, "v0/dep-self-satisfy-community"), ref("secondary", 0, "v0/dep-self-satisfy-secondary")},
			resolverTest + "TestSolveOperators_PackageCannotSelfSatisfy",
			[][]V0Subscription{newSub("test-package", "stable", "community")}},
		{"v0-prio-higher", []CatalogRef{ref("community", 0, "v0/prio-app"), ref("community-operator", 0, "v0/prio-dep"), ref("high-priority-operator", 100, "v0/prio-dep")},
			prioCite + " (a higher-priority catalog's provider)", [][]V0Subscription{newSub("test-package", "alpha", "community")}},
		{"v0-prio-tie", []CatalogRef{ref("community", 0, "v0/prio-app"), ref("community-operator", 100, "v0/prio-dep"), ref("high-priority-operator", 100, "v0/prio-dep")},
			prioCite + " (catalogs of the same priority)", [][]V0Subscription{newSub("test-package", "alpha", "community")}},
		{"v0-prio-own", []CatalogRef{ref("community", 0, "v0/prio-app-dep"), ref("community-operator", 0, "v0/prio-dep"), ref("high-priority-operator", 0, "v0/prio-dep")},
			prioCite + " (the Subscription's own catalog)", [][]V0Subscription{newSub("test-package", "alpha", "community")}},
		{"v0-prio-own-over-higher", []CatalogRef{ref("community", 0, "v0/prio-app-dep"), ref("high-priority-operator", 100, "v0/prio-dep")},
			prioCite + " (the Subscription's own catalog against a higher-priority one; not in the test)", [][]V0Subscription{newSub("test-package", "alpha", "community")}},
		{"v0-dep-forms", community("dep-forms"), "operator-lifecycle-manager pkg/controller/registry/resolver/resolver.go predicateForProperty, convertConstraints, newPackageRequiredPredicate; operator-framework/api pkg/constraints (Parse, cel semver_compare); every range and constraint form, forms OLM v0 rejects, and an update whose dependency is unsatisfiable (fallback)",
			forms},
	}
}

// V0DependencyFixtureSets are the catalog sets of the dependency fixtures.
func V0DependencyFixtureSets() []CatalogSet {
	var out []CatalogSet
	for _, f := range depFixtures() {
		out = append(out, CatalogSet{Name: f.set, GlobalNamespace: "set-" + f.set, Catalogs: f.catalogs})
	}
	return out
}

// V0DependencyFixtureQueries are the dependency fixtures' queries.
func V0DependencyFixtureQueries() []V0Query {
	var out []V0Query
	for _, f := range depFixtures() {
		for _, subs := range f.queries {
			q := V0Query{Set: f.set, Cites: f.cites, Subscriptions: subs}
			q.ID = "fixture/" + v0ID(q)
			out = append(out, q)
		}
	}
	return out
}

// The rabbitmq sets: the shared catalog's two packages with a dependency
// between them (rabbitmq-messaging-topology-operator requires
// rabbitmq-cluster-operator) in separate CatalogSources with priorities,
// each catalog one package directory of the shared catalog
// ("shared/<package>").
const (
	topologyPkg = "rabbitmq-messaging-topology-operator"
	clusterPkg  = "rabbitmq-cluster-operator"
)

// RabbitSets: rmq-prio has the topology operator in catalog topology
// (priority 0) and rabbitmq-cluster-operator in rmq-high (20) and rmq-low
// (5); rmq-own has the whole shared catalog as community (0, holding
// both) and rabbitmq-cluster-operator in rmq-high (20): the
// Subscription's own catalog against a higher priority.
func RabbitSets() []CatalogSet {
	return []CatalogSet{
		{Name: "rmq-prio", GlobalNamespace: "set-rmq-prio", Catalogs: []CatalogRef{
			{Name: "topology", Priority: 0, Source: "shared/" + topologyPkg},
			{Name: "rmq-high", Priority: 20, Source: "shared/" + clusterPkg},
			{Name: "rmq-low", Priority: 5, Source: "shared/" + clusterPkg},
		}},
		{Name: "rmq-own", GlobalNamespace: "set-rmq-own", Catalogs: []CatalogRef{
			{Name: "community", Priority: 0, Source: "shared"},
			{Name: "rmq-high", Priority: 20, Source: "shared/" + clusterPkg},
		}},
	}
}

// RabbitQueries: every channel of the topology operator × (a new install,
// then each bundle installed), subscribed from its catalog in each
// rabbitmq set.
func RabbitQueries(shared *declcfg.DeclarativeConfig) []V0Query {
	topo := onlyPackage(shared, topologyPkg)
	var out []V0Query
	for _, s := range RabbitSets() {
		src := s.Catalogs[0].Name
		out = append(out, V0Queries(s.Name, map[string]*declcfg.DeclarativeConfig{src: topo})...)
	}
	return out
}

// onlyPackage is cfg's blobs of package pkg.
func onlyPackage(cfg *declcfg.DeclarativeConfig, pkg string) *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{}
	for _, p := range cfg.Packages {
		if p.Name == pkg {
			out.Packages = append(out.Packages, p)
		}
	}
	for _, ch := range cfg.Channels {
		if ch.Package == pkg {
			out.Channels = append(out.Channels, ch)
		}
	}
	out.Bundles = slices.DeleteFunc(slices.Clone(cfg.Bundles), func(b declcfg.Bundle) bool { return b.Package != pkg })
	return out
}
