package model

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// depCatalog builds a catalog from a compact description: per package
// "pkg:defaultChannel", channels "pkg/ch: a b c" (each entry replacing
// the one before), bundles "name ver prop..." where a prop is TYPE=JSON.
type depPkg struct {
	name, def string
	channels  map[string][]string // channel → bundle versions in replaces order
	props     map[string][]string // version → extra properties (type=json)
}

func buildDepCatalog(t *testing.T, pkgs ...depPkg) *Catalog {
	t.Helper()
	var b strings.Builder
	for _, p := range pkgs {
		fmt.Fprintf(&b, `{"schema":"olm.package","name":%q,"defaultChannel":%q}`+"\n", p.name, p.def)
		versions := map[string]bool{}
		for ch, vs := range p.channels {
			var entries []string
			for i, v := range vs {
				e := fmt.Sprintf(`{"name":"%s.v%s"`, p.name, v)
				if i > 0 {
					e += fmt.Sprintf(`,"replaces":"%s.v%s"`, p.name, vs[i-1])
				}
				entries = append(entries, e+"}")
				versions[v] = true
			}
			fmt.Fprintf(&b, `{"schema":"olm.channel","package":%q,"name":%q,"entries":[%s]}`+"\n", p.name, ch, strings.Join(entries, ","))
		}
		for v := range versions {
			props := []string{fmt.Sprintf(`{"type":"olm.package","value":{"packageName":%q,"version":%q}}`, p.name, v)}
			for _, pr := range p.props[v] {
				typ, val, _ := strings.Cut(pr, "=")
				props = append(props, fmt.Sprintf(`{"type":%q,"value":%s}`, typ, val))
			}
			fmt.Fprintf(&b, `{"schema":"olm.bundle","package":%q,"name":"%s.v%s","image":"r.example.com/%s:%s","properties":[%s]}`+"\n",
				p.name, p.name, v, p.name, v, strings.Join(props, ","))
		}
	}
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(b.String()), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	c := Convert(cfg)
	if !c.Valid() {
		t.Fatalf("invalid test catalog: %v", c.Problems)
	}
	return c
}

// TestV0Dependencies: each dependency form OLM v0 reads becomes its
// predicate (with OLM's text), and each form it rejects fails naming the
// bundle and the property, with upstream's message.
func TestV0Dependencies(t *testing.T) {
	for _, tc := range []struct {
		name, prop, text, err string
		matches, misses       []string // provider properties (JSON of the provider's extra properties)
	}{
		{"gvk required", `olm.gvk.required={"group":"g.io","version":"v1","kind":"K"}`, "providing an API with group: g.io, version: v1, kind: K", "",
			[]string{`olm.gvk={"group":"g.io","version":"v1","kind":"K"}`}, []string{`olm.gvk={"group":"g.io","version":"v2","kind":"K"}`}},
		{"package required", `olm.package.required={"packageName":"dep","versionRange":">1.0.0 <2.0.0"}`, "with package: dep and with version in range: >1.0.0 <2.0.0", "",
			[]string{"dep@1.5.0"}, []string{"dep@1.0.0", "dep@2.0.0", "other@1.5.0"}},
		{"label required", `olm.label.required={"label":"tier=gold"}`, "with label: tier=gold", "",
			[]string{`olm.label={"label":"tier=gold"}`}, []string{`olm.label={"label":"tier=silver"}`}},
		{"constraint gvk", `olm.constraint={"gvk":{"group":"g.io","version":"v1","kind":"K"}}`, "providing an API with group: g.io, version: v1, kind: K", "",
			[]string{`olm.gvk={"group":"g.io","version":"v1","kind":"K"}`}, nil},
		{"constraint all", `olm.constraint={"failureMessage":"f","all":{"constraints":[{"package":{"packageName":"dep","versionRange":">=1.0.0"}},{"gvk":{"group":"g.io","version":"v1","kind":"K"}}]}}`,
			"with package: dep and with version in range: >=1.0.0 and providing an API with group: g.io, version: v1, kind: K", "",
			[]string{`dep@1.0.0 olm.gvk={"group":"g.io","version":"v1","kind":"K"}`}, []string{"dep@1.0.0"}},
		{"constraint any", `olm.constraint={"any":{"constraints":[{"package":{"packageName":"a","versionRange":">=1.0.0"}},{"package":{"packageName":"b","versionRange":">=1.0.0"}}]}}`,
			"with package: a and with version in range: >=1.0.0 or with package: b and with version in range: >=1.0.0", "",
			[]string{"a@1.0.0", "b@2.0.0"}, []string{"c@1.0.0"}},
		{"constraint not", `olm.constraint={"not":{"constraints":[{"gvk":{"group":"g.io","version":"v1","kind":"K"}}]}}`,
			"providing an API with group: g.io, version: v1, kind: K", "",
			[]string{"x@1.0.0"}, []string{`x@1.0.0 olm.gvk={"group":"g.io","version":"v1","kind":"K"}`}},
		{"constraint cel semver_compare", `olm.constraint={"failureMessage":"needs dep 2+","cel":{"rule":"properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'dep' && semver_compare(p.value.version, '2.0.0') >= 0)"}}`,
			`with constraint: "properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'dep' && semver_compare(p.value.version, '2.0.0') >= 0)" and message: "needs dep 2+"`, "",
			[]string{"dep@2.0.0", "dep@10.0.0"}, []string{"dep@1.9.0"}},
		{"a bad range", `olm.package.required={"packageName":"dep","versionRange":"not-a-range"}`, "", `bundle app.v1.0.0: property[1] of type "olm.package.required": OLM v0 cannot resolve it: Could not get version from string: "not-a-range"`, nil, nil},
		{"an unknown constraint", `olm.constraint={"unknown":{}}`, "", `parse olm.constraint: json: unknown field "unknown"`, nil, nil},
		{"an empty constraint", `olm.constraint={"failureMessage":"x"}`, "", "convert olm.constraint to resolver predicate: constraint is empty", nil, nil},
		{"a cel rule that is not Bool", `olm.constraint={"cel":{"rule":"1 + 1"}}`, "", "cel expressions must have type Bool", nil, nil},
		{"a cel syntax error", `olm.constraint={"cel":{"rule":"properties.exists(p,"}}`, "", "Syntax error", nil, nil},
		{"a gvk required that is not an object", `olm.label.required="x"`, "", "json: cannot unmarshal string", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			typ, val, _ := strings.Cut(tc.prop, "=")
			b := &Bundle{Name: "app.v1.0.0", Properties: []declcfg.Property{
				{Type: propPackage, Value: []byte(`{"packageName":"app","version":"1.0.0"}`)},
				{Type: typ, Value: []byte(val)},
			}}
			deps, err := b.V0Dependencies()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "bundle app.v1.0.0: property[1]") {
					t.Fatalf("error %v, want one naming the bundle and property[1] with %q", err, tc.err)
				}
				return
			}
			if err != nil || len(deps) != 1 {
				t.Fatalf("%v %v", deps, err)
			}
			d := deps[0]
			if d.Property != 1 || d.Type != typ || !strings.HasSuffix(d.Text, tc.text) {
				t.Errorf("dependency %+v, want text %q", d, tc.text)
			}
			provider := func(spec string) *Bundle {
				fields := strings.Fields(spec)
				p := &Bundle{Name: "prov"}
				for _, f := range fields {
					if pkg, v, ok := strings.Cut(f, "@"); ok && !strings.Contains(f, "=") {
						p.Package = &Package{Name: pkg}
						p.Properties = append(p.Properties, declcfg.Property{Type: propPackage, Value: []byte(fmt.Sprintf(`{"packageName":%q,"version":%q}`, pkg, v))})
						continue
					}
					pt, pv, _ := strings.Cut(f, "=")
					p.Properties = append(p.Properties, declcfg.Property{Type: pt, Value: []byte(pv)})
				}
				return p
			}
			for _, m := range tc.matches {
				if !d.Matches(provider(m)) {
					t.Errorf("%s does not match %s", m, d.Text)
				}
			}
			for _, m := range tc.misses {
				if d.Matches(provider(m)) {
					t.Errorf("%s matches %s", m, d.Text)
				}
			}
		})
	}
}

const (
	reqDep1   = `olm.package.required={"packageName":"dep","versionRange":">=1.0.0"}`
	reqDep2   = `olm.package.required={"packageName":"dep","versionRange":">=2.0.0"}`
	reqDepLt2 = `olm.package.required={"packageName":"dep","versionRange":"<2.0.0"}`
	reqGVK    = `olm.gvk.required={"group":"g.io","version":"v1","kind":"K"}`
	provGVK   = `olm.gvk={"group":"g.io","version":"v1","kind":"K"}`
)

// TestV0SetResolve: OLM v0's choices with dependencies, as
// operator-lifecycle-manager's resolver makes them (resolver.go
// getBundleVariables' provider order, the solver's preference and
// backtracking).
func TestV0SetResolve(t *testing.T) {
	app := func(props map[string][]string) depPkg {
		return depPkg{name: "app", def: "stable", channels: map[string][]string{"stable": {"1.0.0", "2.0.0", "3.0.0"}}, props: props}
	}
	dep := func(chs map[string][]string, props map[string][]string) depPkg {
		return depPkg{name: "dep", def: "stable", channels: chs, props: props}
	}
	type member struct {
		name string
		prio int32
		pkgs []depPkg
	}
	for _, tc := range []struct {
		name    string
		members []member
		subs    []V0Subscription
		// want: each installed bundle "catalog/channel/bundle", sorted
		// as modelOps sorts; or the error's prefix.
		want    string
		wantErr string
	}{
		{"the head, its dependency from the own catalog before a higher priority",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqDep1}}), dep(map[string][]string{"stable": {"1.0.0"}}, nil)}},
				{"high", 100, []depPkg{dep(map[string][]string{"stable": {"1.0.0", "1.5.0"}}, nil)}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"own/app/stable/app.v3.0.0 own/dep/stable/dep.v1.0.0", ""},
		{"other catalogs by priority, then by name",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqDep1}})}},
				{"b", 5, []depPkg{dep(map[string][]string{"stable": {"1.0.0"}}, nil)}},
				{"a", 5, []depPkg{dep(map[string][]string{"stable": {"1.1.0"}}, nil)}},
				{"z", 9, []depPkg{dep(map[string][]string{"stable": {"1.2.0"}}, nil)}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"own/app/stable/app.v3.0.0 z/dep/stable/dep.v1.2.0", ""},
		{"the default channel first, then by name; each channel head first",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqDep1}}),
				dep(map[string][]string{"alpha": {"9.0.0"}, "stable": {"1.0.0", "1.1.0"}}, nil)}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"own/app/stable/app.v3.0.0 own/dep/stable/dep.v1.1.0", ""},
		{"a candidate whose dependency nobody provides is passed over",
			[]member{{"own", 0, []depPkg{
				{name: "app", def: "stable", channels: map[string][]string{"stable": {"1.0.0", "2.0.0", "3.0.0"}}, props: map[string][]string{"3.0.0": {reqGVK}}},
			}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"", ""},
		{"an installed provider is preferred, and the provider's own dependencies are solved",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqGVK}}),
				dep(map[string][]string{"stable": {"1.0.0", "2.0.0"}}, map[string][]string{"1.0.0": {provGVK}, "2.0.0": {provGVK, `olm.package.required={"packageName":"base","versionRange":">=0.1.0"}`}}),
				{name: "base", def: "stable", channels: map[string][]string{"stable": {"0.1.0"}}}}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"own/app/stable/app.v3.0.0 own/base/stable/base.v0.1.0 own/dep/stable/dep.v2.0.0", ""},
		{"two dependencies on one package: the solver backtracks to a provider both accept",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqDep1, reqDepLt2}}),
				dep(map[string][]string{"stable": {"1.0.0", "1.5.0", "2.0.0"}}, nil)}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"own/app/stable/app.v3.0.0 own/dep/stable/dep.v1.5.0", ""},
		{"two Subscriptions: the installed dependency's next bundle, one hop at a time, holds the requirer",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqDep2}}),
				dep(map[string][]string{"stable": {"1.0.0", "1.5.0", "2.0.0"}}, nil)}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"},
				{Catalog: "own", Package: "dep", Channel: "stable", Installed: "dep.v1.0.0"}},
			"own/dep/stable/dep.v1.5.0", ""},
		{"the installed bundle's own dependency cannot be satisfied: the resolution fails",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"2.0.0": {reqGVK}, "3.0.0": {reqGVK}})}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"", "constraints not satisfiable: bundle app.v3.0.0 requires an operator providing an API with group: g.io, version: v1, kind: K: no bundle in catalogs own provides"},
		{"a dependency OLM v0 cannot read fails the resolution",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {`olm.package.required={"packageName":"dep","versionRange":"x"}`}})}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"", "bundle app.v3.0.0: property[1] of type \"olm.package.required\": OLM v0 cannot resolve it"},
		{"a Subscription to a channel its package lacks is invalid, whatever is installed",
			[]member{{"own", 0, []depPkg{app(nil)}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "beta", Installed: "app.v2.0.0"}},
			"", "constraints not satisfiable: subscription app exists, no operators found in channel beta of package app"},
		{"a dependency OLM v0 cannot read on a provider the solver would not need still fails the resolution (getBundleVariables reads every reachable bundle)",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqGVK}}),
				{name: "bee", def: "stable", channels: map[string][]string{"stable": {"1.0.0"}}, props: map[string][]string{"1.0.0": {provGVK}}},
				{name: "zed", def: "stable", channels: map[string][]string{"stable": {"1.0.0"}}, props: map[string][]string{"1.0.0": {provGVK, `olm.constraint={"bogus":1}`}}}}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"", "bundle zed.v1.0.0: property[2] of type \"olm.constraint\": OLM v0 cannot resolve it: parse olm.constraint: json: unknown field \"bogus\""},
		{"a dependency cycle is satisfied by the bundles already chosen",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqDep1}}),
				dep(map[string][]string{"stable": {"1.0.0"}}, map[string][]string{"1.0.0": {`olm.package.required={"packageName":"app","versionRange":">=3.0.0"}`}})}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v2.0.0"}},
			"own/app/stable/app.v3.0.0 own/dep/stable/dep.v1.0.0", ""},
		{"a new install takes the head with its providers",
			[]member{{"own", 0, []depPkg{app(map[string][]string{"3.0.0": {reqDep1}}), dep(map[string][]string{"stable": {"1.0.0"}}, nil)}}},
			[]V0Subscription{{Catalog: "own", Package: "app", Channel: "stable"}},
			"own/app/stable/app.v3.0.0 own/dep/stable/dep.v1.0.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ms []V0CatalogMember
			for _, m := range tc.members {
				ms = append(ms, V0CatalogMember{Name: m.name, Priority: m.prio, Catalog: buildDepCatalog(t, m.pkgs...)})
			}
			got := NewV0Set(ms).Resolve(tc.subs)
			if tc.wantErr != "" || got.Error != "" {
				if tc.wantErr == "" || !strings.HasPrefix(got.Error, tc.wantErr) {
					t.Fatalf("error %q, want %q", got.Error, tc.wantErr)
				}
				return
			}
			var ops []string
			for _, o := range modelOps(got) {
				ops = append(ops, o.catalog+"/"+o.pkg+"/"+o.channel+"/"+o.name)
			}
			if s := strings.Join(ops, " "); s != tc.want {
				t.Errorf("installs %q, want %q (%+v)", s, tc.want, got)
			}
		})
	}
}

// TestV0SetResolvePath: the path one resolution at a time, each hop with
// its dependencies; held when every candidate is passed over, with the
// reason naming the catalogs; providers installed once and then
// preferred as installed CSVs.
func TestV0SetResolvePath(t *testing.T) {
	c := buildDepCatalog(t,
		depPkg{name: "app", def: "stable", channels: map[string][]string{"stable": {"1.0.0", "2.0.0", "3.0.0", "4.0.0"}},
			props: map[string][]string{"2.0.0": {reqDep1}, "3.0.0": {reqDep1}, "4.0.0": {reqGVK}}},
		depPkg{name: "dep", def: "stable", channels: map[string][]string{"stable": {"1.0.0"}}},
	)
	s := NewV0Set([]V0CatalogMember{{Name: "cat", Catalog: c}, {Name: "empty"}})
	r := s.ResolvePath(V0SetQuery{Catalog: "cat", Package: "app", Channel: "stable", Installed: "app.v1.0.0"})
	if r.Error != "" || len(r.PathToHead) != 2 || r.ReachesHead || r.Head != "app.v4.0.0" {
		t.Fatalf("%+v", r)
	}
	h1, h2 := r.PathToHead[0], r.PathToHead[1]
	if h1.Name != "app.v2.0.0" || len(h1.Providers) != 1 || h1.Dependencies[0].Pick == nil || h1.Dependencies[0].Pick.Installed {
		t.Errorf("hop 1 %+v", h1)
	}
	if h2.Name != "app.v3.0.0" || len(h2.Providers) != 0 || h2.Dependencies[0].Pick == nil || !h2.Dependencies[0].Pick.Installed || h2.Dependencies[0].Pick.Catalog != "cat" {
		t.Errorf("hop 2 %+v", h2)
	}
	if r.Held == nil || r.Held.At != "app.v3.0.0" || len(r.Held.PassedOver) != 1 || r.Held.PassedOver[0].Bundle != "app.v4.0.0" ||
		!strings.Contains(r.Held.Message, "no bundle in catalogs cat, empty provides an operator providing an API with group: g.io, version: v1, kind: K") {
		t.Errorf("held %+v", r.Held)
	}
	if len(r.Resolutions) != 3 {
		t.Errorf("%d resolutions, want 3 (two hops, then the stay)", len(r.Resolutions))
	}
	if bad := s.ResolvePath(V0SetQuery{Catalog: "nope", Package: "app"}); !strings.Contains(bad.Error, "no catalog nope in the set (cat, empty)") {
		t.Errorf("unknown catalog: %q", bad.Error)
	}
}

// BenchmarkV0SetSharedPaths: OLM v0 with dependencies for every entry
// of the shared catalog's packages that declare one, over a set of the
// catalog twice (a fresh set per iteration: providers found and indexes
// built again; each bundle's properties are read once, in the first).
func BenchmarkV0SetSharedPaths(b *testing.B) {
	cat := Convert(sharedConfig(b))
	for b.Loop() {
		s := NewV0Set([]V0CatalogMember{{Name: "a", Catalog: cat}, {Name: "b", Priority: 5, Catalog: cat}})
		for _, p := range cat.Packages {
			if !p.DeclaresV0Dependencies() {
				continue
			}
			for _, ch := range p.Channels {
				for _, e := range ch.Entries {
					if v := e.InstalledViewInSets(nil, s, "a"); v.OLMV0.Error != "" {
						b.Fatal(v.OLMV0.Error)
					}
				}
			}
		}
	}
}

// TestV0BoundDependencies: a written next/ file keeps at most
// FileListMax providers and passed-over candidates per hop (and held's),
// with their number.
func TestV0BoundDependencies(t *testing.T) {
	many := func(n int) ([]V0Provider, []V0PassedOver) {
		ps, pos := make([]V0Provider, n), make([]V0PassedOver, n)
		for i := range n {
			ps[i].Bundle, pos[i].Bundle = fmt.Sprint("p", i), fmt.Sprint("c", i)
		}
		return ps, pos
	}
	ps, pos := many(20)
	few, fewPos := many(3)
	r := V0Result{PathToHead: []Hop{{Name: "a", Providers: ps, PassedOver: pos}, {Name: "b", Providers: few, PassedOver: fewPos}},
		Held: &V0Held{At: "b", PassedOver: pos}}
	r.Next = &r.PathToHead[0]
	v := InstalledView{OLMV0: r}
	v.OLMV0.boundDependencies()
	h0, h1 := v.OLMV0.PathToHead[0], v.OLMV0.PathToHead[1]
	if len(h0.Providers) != FileListMax || h0.ProvidersTotal != 20 || len(h0.PassedOver) != FileListMax || h0.PassedOverTotal != 20 ||
		h0.Providers[FileListMax-1].Bundle != "p15" || v.OLMV0.Next.ProvidersTotal != 20 {
		t.Errorf("hop a: %d providers (total %d), %d passed over (total %d)", len(h0.Providers), h0.ProvidersTotal, len(h0.PassedOver), h0.PassedOverTotal)
	}
	if len(h1.Providers) != 3 || h1.ProvidersTotal != 0 || h1.PassedOverTotal != 0 {
		t.Errorf("hop b cut: %+v", h1)
	}
	if h := v.OLMV0.Held; len(h.PassedOver) != FileListMax || h.PassedOverTotal != 20 {
		t.Errorf("held: %d passed over, total %d", len(h.PassedOver), h.PassedOverTotal)
	}
}

// TestV0SetInstalledProvidersByPackage: installed CSVs come first among
// a dependency's providers, ordered by package as sortBundles orders
// them, not by Subscription.
func TestV0SetInstalledProvidersByPackage(t *testing.T) {
	const reqLabel, label = `olm.label.required={"label":"l"}`, `olm.label={"label":"l"}`
	c := buildDepCatalog(t,
		depPkg{name: "app", def: "stable", channels: map[string][]string{"stable": {"1.0.0", "2.0.0"}}, props: map[string][]string{"2.0.0": {reqLabel}}},
		depPkg{name: "zed", def: "stable", channels: map[string][]string{"stable": {"1.0.0"}}, props: map[string][]string{"1.0.0": {label}}},
		depPkg{name: "bee", def: "stable", channels: map[string][]string{"stable": {"1.0.0"}}, props: map[string][]string{"1.0.0": {label}}},
	)
	r := NewV0Set([]V0CatalogMember{{Name: "own", Catalog: c}}).Resolve([]V0Subscription{
		{Catalog: "own", Package: "app", Channel: "stable", Installed: "app.v1.0.0"},
		{Catalog: "own", Package: "zed", Channel: "stable", Installed: "zed.v1.0.0"},
		{Catalog: "own", Package: "bee", Channel: "stable", Installed: "bee.v1.0.0"},
	})
	app := r.Subscriptions[0]
	if r.Error != "" || app.Next == nil || len(app.Dependencies) != 1 || app.Dependencies[0].Pick == nil {
		t.Fatalf("%+v", r)
	}
	if p := app.Dependencies[0].Pick; p.Bundle != "bee.v1.0.0" || !p.Installed || p.Catalog != "own" {
		t.Errorf("pick %+v, want the installed bee.v1.0.0", p)
	}
}
