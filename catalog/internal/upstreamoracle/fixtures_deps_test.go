package upstreamoracle

import (
	"slices"
	"strings"
	"testing"
)

// TestDependencyFixturesAsUpstreamAsserts: each recorded answer of a
// dependency fixture is what the resolver test it cites asserts (the
// operators to install, by name and catalog, or the error it names), so
// the fixtures reproduce those tests; the forms without an upstream test
// are pinned to their recorded answers here, with why.
func TestDependencyFixturesAsUpstreamAsserts(t *testing.T) {
	rec, err := Load(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		ops []string // name@catalog, sorted
		err string   // a substring of the error
	}
	tp := "community:test-package/alpha/test-package.v1/community:another-package/alpha/-"
	wants := map[string]want{
		"v0-dep-package/" + tp:    {ops: []string{"another-package.v1@community", "package-c.v1@community", "test-package.v1.0.1@community"}},
		"v0-dep-latest/" + tp:     {ops: []string{"another-package.v1.0.1@community", "package-c.v1.0.1@community", "package-d.v1.0.1@community", "test-package.v1.0.1@community"}},
		"v0-dep-nested/" + tp:     {ops: []string{"another-package.v1.0.1@community", "package-c.v1.0.1@community", "package-d.v1.0.1@community", "package-e.v1.0.1@community", "test-package.v1.0.1@community"}},
		"v0-dep-gvk/" + tp:        {ops: []string{"another-package.v1@community", "package-c.v1@community"}},
		"v0-dep-nested-gvk/" + tp: {ops: []string{"another-package.v1.0.1@community", "package-c.v1.0.1@community", "package-d.v1.0.1@community", "test-package.v1.0.1@community"}},
		// the community catalog's package-c needs package-d, which no
		// catalog has: certified's package-c is picked
		"v0-dep-ignore-unsat/" + tp:                              {ops: []string{"another-package.v1@community", "package-c.v1@certified"}},
		"v0-dep-label/community:test-package/alpha/-":            {ops: []string{"another-package.v1@community", "test-package@community"}},
		"v0-dep-label-unsat/community:test-package/alpha/-":      {err: "constraints not satisfiable: bundle test-package requires an operator with label: lts"},
		"v0-constraint-all/community:bar/stable/-":               {ops: []string{"bar.v1.0.0@community", "foo.v1.0.1@community"}},
		"v0-constraint-any/community:bar/stable/-":               {ops: []string{"bar.v1.0.0@community", "foo.v1.0.1@community"}},
		"v0-constraint-not/community:bar/stable/-":               {ops: []string{"bar.v1.0.0@community", "foo.v0.99.0@community"}},
		"v0-constraint-unknown/community:bar/stable/-":           {err: `json: unknown field "unknown"`},
		"v0-cel-gvk/community:test-package/stable/-":             {ops: []string{"opA.v1.0.0@community", "opB.v1.0.0@community"}},
		"v0-cel-gvk-unsat/community:test-package/stable/-":       {err: "gvk2-constraint"},
		"v0-cel-package/community:test-package/stable/-":         {ops: []string{"opA.v1.0.0@community", "opB.v1.0.1@community"}},
		"v0-dep-default-channel/community:test-package/alpha/-":  {ops: []string{"another-package.v0.0.1@community", "test-package.v0.0.1@community"}},
		"v0-dep-self-satisfy/community:test-package/stable/-":    {ops: []string{"opA.v1.0.0@community", "opB.v1.0.0@community", "opE.v1.0.0@secondary"}},
		"v0-prio-higher/community:test-package/alpha/-":          {ops: []string{"another-package.v1@high-priority-operator", "test-package.v1@community"}},
		"v0-prio-tie/community:test-package/alpha/-":             {ops: []string{"another-package.v1@community-operator", "test-package.v1@community"}},
		"v0-prio-own/community:test-package/alpha/-":             {ops: []string{"another-package.v1@community", "test-package.v1@community"}},
		"v0-prio-own-over-higher/community:test-package/alpha/-": {ops: []string{"another-package.v1@community", "test-package.v1@community"}},
		// dep-forms: no upstream test; the recorded answers
		"v0-dep-forms/community:r-exact/stable/-":      {ops: []string{"dep.v1.1.0@community", "r-exact.v1.0.0@community"}},
		"v0-dep-forms/community:r-range/stable/-":      {ops: []string{"dep.v1.1.0@community", "r-range.v1.0.0@community"}},
		"v0-dep-forms/community:r-gt/stable/-":         {ops: []string{"dep.v2.0.0@community", "r-gt.v1.0.0@community"}},
		"v0-dep-forms/community:r-or/stable/-":         {ops: []string{"dep.v2.0.0@community", "r-or.v1.0.0@community"}},
		"v0-dep-forms/community:r-wildcard/stable/-":   {ops: []string{"dep.v1.2.0@community", "r-wildcard.v1.0.0@community"}},
		"v0-dep-forms/community:r-none/stable/-":       {err: "bundle r-none.v1.0.0 requires an operator with package: dep and with version in range: >3.0.0"},
		"v0-dep-forms/community:r-bad-range/stable/-":  {err: `Could not get version from string: "not-a-range"`},
		"v0-dep-forms/community:c-package/stable/-":    {ops: []string{"c-package.v1.0.0@community", "dep.v1.2.0@community"}},
		"v0-dep-forms/community:c-gvk/stable/-":        {ops: []string{"c-gvk.v1.0.0@community", "dep.v1.2.0@community"}},
		"v0-dep-forms/community:c-cel-semver/stable/-": {ops: []string{"c-cel-semver.v1.0.0@community", "dep.v1.1.0@community"}},
		"v0-dep-forms/community:c-cel-bad/stable/-":    {err: "convert olm.constraint to resolver predicate: ERROR: <input>:1:31: Syntax error"},
		"v0-dep-forms/community:c-empty/stable/-":      {err: "convert olm.constraint to resolver predicate: constraint is empty"},
		"v0-dep-forms/community:l-required/stable/-":   {err: "requires an operator with label: lts"},
		// fallback 1.1.0 and 1.2.0 need what no catalog has: a new
		// install takes 1.0.0, an installed 1.0.0 stays (its dependency
		// moves), an installed 1.1.0 fails
		"v0-dep-forms/community:fallback/stable/-":                                               {ops: []string{"dep.v2.0.0@community", "fallback.v1.0.0@community"}},
		"v0-dep-forms/community:fallback/stable/fallback.v1.0.0":                                 {ops: []string{"dep.v2.0.0@community"}},
		"v0-dep-forms/community:fallback/stable/fallback.v1.1.0":                                 {err: "bundle fallback.v1.1.0 requires an operator providing an API with group: missing.example.com"},
		"v0-dep-forms/community:fallback/stable/fallback.v1.0.0/community:dep/stable/dep.v1.0.0": {ops: []string{"dep.v1.1.0@community"}},
	}
	seen := 0
	for _, r := range rec.V0 {
		id, ok := strings.CutPrefix(r.ID, "fixture/")
		w, ok2 := wants[id]
		if !ok || !ok2 {
			continue
		}
		seen++
		if r.Answer.Unstable {
			t.Errorf("%s: unstable", r.ID)
		}
		var ops []string
		for _, o := range r.Answer.Operators {
			ops = append(ops, o.Name+"@"+o.Catalog)
		}
		slices.Sort(ops)
		if w.err != "" {
			if !strings.Contains(r.Answer.Error, w.err) {
				t.Errorf("%s: error %q, want it to contain %q", r.ID, r.Answer.Error, w.err)
			}
			continue
		}
		if r.Answer.Error != "" || !slices.Equal(ops, w.ops) {
			t.Errorf("%s: %v (error %q), want %v", r.ID, ops, r.Answer.Error, w.ops)
		}
	}
	if seen != len(wants) {
		t.Errorf("%d of %d expected fixture answers recorded", seen, len(wants))
	}
	if n := len(V0DependencyFixtureQueries()); n != len(wants) {
		t.Errorf("%d dependency fixture queries, %d with an expected answer here", n, len(wants))
	}
}

// TestRabbitSets: the topology operator's dependency on
// rabbitmq-cluster-operator is provided by the higher-priority catalog
// (rmq-high over rmq-low), by the Subscription's own catalog when it has
// the package (community over rmq-high) when the topology operator moves,
// and by rmq-high again when its installed CSV (the channel head) stays:
// that CSV's own catalog is the cluster's @existing, not community.
func TestRabbitSets(t *testing.T) {
	rec, err := Load(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rec.V0 {
		if r.Set != "rmq-prio" && r.Set != "rmq-own" {
			continue
		}
		n++
		if r.Answer.Error != "" || r.Answer.Unstable {
			t.Errorf("%s: %+v", r.ID, r.Answer)
		}
		moves := false
		for _, o := range r.Answer.Operators {
			moves = moves || o.Package == topologyPkg
		}
		for _, o := range r.Answer.Operators {
			if o.Package != clusterPkg {
				continue
			}
			want := "rmq-high"
			if r.Set == "rmq-own" && moves {
				want = "community"
			}
			if o.Catalog != want {
				t.Errorf("%s: %s from %s, want %s", r.ID, o.Name, o.Catalog, want)
			}
		}
	}
	if n == 0 {
		t.Error("no rabbitmq set records")
	}
}
