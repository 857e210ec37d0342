package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

func names(es []*Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// TestSortChannelV0 ports operator-lifecycle-manager
// pkg/controller/registry/resolver/resolver_test.go TestSortChannel
// (every case), plus the chains of TestDisjointChannelGraph and
// TestSolveOperators_WithSkipsAndStartingCSV (same file).
func TestSortChannelV0(t *testing.T) {
	for _, tc := range []struct {
		name string // upstream case
		in   []*Entry
		out  []string
		err  string
	}{
		{"wrinkle-free", []*Entry{{Name: "b"}, {Name: "a", Replaces: "b"}}, []string{"a", "b"}, ""},
		{"empty", nil, []string{}, ""},
		{"replacement cycle", []*Entry{{Name: "a", Replaces: "b"}, {Name: "b", Replaces: "a"}}, nil,
			`no channel heads (entries not replaced by another entry) found in channel "channel" of package "package"`},
		{"replacement cycle (3 entries)", []*Entry{{Name: "a", Replaces: "b"}, {Name: "b", Replaces: "c"}, {Name: "c", Replaces: "b"}}, nil,
			`a cycle exists in the chain of replacement beginning with "a" in channel "channel" of package "package"`},
		{"skipped and replaced entry omitted", []*Entry{{Name: "a", Replaces: "b", Skips: []string{"b"}}, {Name: "b"}}, []string{"a"}, ""},
		{"skipped entry omitted", []*Entry{{Name: "a", Replaces: "b", Skips: []string{"c"}}, {Name: "b", Replaces: "c"}, {Name: "c"}}, []string{"a", "b"}, ""},
		{"two replaces chains", []*Entry{{Name: "a"}, {Name: "b", Replaces: "c"}, {Name: "c"}}, nil,
			`a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "channel" of package "package": a, b...c`},
		// TestDisjointChannelGraph
		{"TestDisjointChannelGraph", []*Entry{
			{Name: "test-package.side1.v1"}, {Name: "test-package.side1.v2", Replaces: "test-package.side1.v1"},
			{Name: "test-package.side2.v1"}, {Name: "test-package.side2.v2", Replaces: "test-package.side2.v1"},
		}, nil, `a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "channel" of package "package": test-package.side1.v2...test-package.side1.v1, test-package.side2.v2...test-package.side2.v1`},
		// TestSolveOperators_WithSkipsAndStartingCSV's test-package: v4 skips
		// v3, v5 skips v2..v4; the walk continues through skipped entries.
		{"TestSolveOperators_WithSkipsAndStartingCSV chain", []*Entry{
			{Name: "v1"}, {Name: "v2", Replaces: "v1"}, {Name: "v3", Replaces: "v2"},
			{Name: "v4", Replaces: "v3", Skips: []string{"v3"}},
			{Name: "v5", Replaces: "v4", Skips: []string{"v2", "v3", "v4"}},
			{Name: "v6", Replaces: "v5"},
		}, []string{"v6", "v5", "v1"}, ""},
		{"skips and replaces naming entries of no list count for nothing", []*Entry{{Name: "a", Replaces: "z", Skips: []string{"y"}}}, []string{"a"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SortChannelV0("package", "channel", tc.in)
			if errString(err) != tc.err {
				t.Fatalf("error = %q, want %q", errString(err), tc.err)
			}
			if tc.err == "" && !slices.Equal(names(got), tc.out) {
				t.Errorf("chain = %q, want %q", names(got), tc.out)
			}
		})
	}
}

// v0Cat is a package "a" (or pkg) with the channels given; every entry
// gets a bundle of the version in versions (0.0.0 when not listed, as
// OLM's test bundles).
func v0Cat(pkg, def string, versions map[string]string, chans ...declcfg.Channel) *Package {
	vs := map[string]string{}
	for _, ch := range chans {
		for _, e := range ch.Entries {
			vs[e.Name] = "0.0.0"
		}
	}
	for n, v := range versions {
		vs[n] = v
	}
	return Convert(catalogOf(pkg, def, vs, chans...)).Package(pkg)
}

func ce(name, replaces string, skips ...string) declcfg.ChannelEntry {
	return declcfg.ChannelEntry{Name: name, Replaces: replaces, Skips: skips}
}

func cer(name, replaces, skipRange string) declcfg.ChannelEntry {
	return declcfg.ChannelEntry{Name: name, Replaces: replaces, SkipRange: skipRange}
}

// TestV0Next ports the subscription resolution cases of operator-
// lifecycle-manager's resolver tests whose outcome is decided by the
// graph (sortChannel order and the replaces/skips/skipRange predicate),
// each naming its upstream test. An installed CSV of OLM's tests has
// version 0.0.0 unless the test sets one.
func TestV0Next(t *testing.T) {
	inst := func(name, version string) *Installed { return &Installed{Name: name, Version: version} }
	for _, tc := range []struct {
		name string // upstream test (file: test or case)
		pkg  *Package
		q    V0Query
		want string // "" for no update
		err  string
	}{
		{"resolver_test.go: TestSolveOperators (new subscription)",
			v0Cat("another-package", "alpha", map[string]string{"another-package.v1": "1.0.1"}, newTestChannel("another-package", "alpha", ce("another-package.v1", ""))),
			V0Query{Channel: "alpha"}, "another-package.v1", ""},
		{"resolver_test.go: TestSolveOperators_FindLatestVersion (test-package.v1 → v1.0.1)",
			v0Cat("test-package", "alpha", map[string]string{"test-package.v1.0.1": "1.0.1"}, newTestChannel("test-package", "alpha", ce("test-package.v1.0.1", "test-package.v1"))),
			V0Query{Channel: "alpha", Installed: inst("test-package.v1", "0.0.1")}, "test-package.v1.0.1", ""},
		{"resolver_test.go: TestSolveOperators_FindLatestVersion (new another-package: head 1.0.1)",
			v0Cat("another-package", "alpha", map[string]string{"another-package.v0.9.0": "0.9.0", "another-package.v1.0.0": "1.0.0", "another-package.v1.0.1": "1.0.1"},
				newTestChannel("another-package", "alpha", ce("another-package.v0.9.0", ""), ce("another-package.v1.0.0", "another-package.v0.9.0"), ce("another-package.v1.0.1", "another-package.v1.0.0"))),
			V0Query{Channel: "alpha"}, "another-package.v1.0.1", ""},
		{"resolver_test.go: TestSolveOperators_PreferDefaultChannelInResolution",
			v0Cat("test-package", "stable", map[string]string{"test-package.v0.0.2": "0.0.2", "test-package.v0.0.1": "0.0.1"},
				newTestChannel("test-package", "alpha", ce("test-package.v0.0.2", "test-package.v1")),
				newTestChannel("test-package", "stable", ce("test-package.v0.0.1", "test-package.v1"))),
			V0Query{}, "test-package.v0.0.1", ""},
		{"resolver_test.go: TestSolveOperators_WithSkips (new subscription takes the head that skips v1)",
			v0Cat("another-package", "alpha", map[string]string{"another-package.v1": "1.0.0", "another-package.v2": "2.0.0"},
				newTestChannel("another-package", "alpha", ce("another-package.v1", ""), ce("another-package.v2", "", "another-package.v1"))),
			V0Query{Channel: "alpha"}, "another-package.v2", ""},
		{"resolver_test.go: TestSolveOperators_WithSkipsAndStartingCSV (startingCSV installs a skipped bundle)",
			v0Cat("another-package", "alpha", map[string]string{"another-package.v1": "1.0.0", "another-package.v2": "2.0.0"},
				newTestChannel("another-package", "alpha", ce("another-package.v1", ""), ce("another-package.v2", "", "another-package.v1"))),
			V0Query{Channel: "alpha", StartingCSV: "another-package.v1"}, "another-package.v1", ""},
		{"resolver_test.go: TestSolveOperatorsWithDeprecatedInnerChannelEntry (olm.deprecations do not affect v0)",
			v0Cat("a", "c", map[string]string{"a-1": "1.0.0", "a-2": "2.0.0", "a-3": "3.0.0"},
				newTestChannel("a", "c", ce("a-1", ""), ce("a-2", "a-1"), ce("a-3", "a-2"))),
			V0Query{Channel: "c"}, "a-3", ""},
		{"resolver_test.go: TestDisjointChannelGraph",
			v0Cat("test-package", "alpha", nil, newTestChannel("test-package", "alpha",
				ce("test-package.side1.v1", ""), ce("test-package.side1.v2", "test-package.side1.v1"),
				ce("test-package.side2.v1", ""), ce("test-package.side2.v2", "test-package.side2.v1"))),
			V0Query{Channel: "alpha"}, "", `a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "alpha" of package "test-package": test-package.side1.v2...test-package.side1.v1, test-package.side2.v2...test-package.side2.v1`},
		{"step_resolver_test.go: SubscriptionOmitsChannel",
			v0Cat("package", "channel", nil, newTestChannel("package", "channel", ce("bundle", ""))),
			V0Query{}, "bundle", ""},
		{"step_resolver_test.go: SubscriptionWithNoCandidatesInChannel/Error",
			v0Cat("a", "alpha", nil, newTestChannel("a", "alpha", ce("a.v1", ""))),
			V0Query{Channel: "beta"}, "", "no operators found in channel beta of package a"},
		{"step_resolver_test.go: SubscriptionWithNoCandidatesWithStartingCSVName/Error",
			v0Cat("a", "alpha", nil, newTestChannel("a", "alpha", ce("a.v1", ""))),
			V0Query{Channel: "alpha", StartingCSV: "notfound"}, "", "no operators found with name notfound in channel alpha of package a"},
		{"step_resolver_test.go: InstalledSub/NoUpdates",
			v0Cat("a", "alpha", nil, newTestChannel("a", "alpha", ce("a.v1", ""))),
			V0Query{Channel: "alpha", Installed: inst("a.v1", "0.0.0")}, "", ""},
		{"step_resolver_test.go: InstalledSub/UpdateAvailable",
			v0Cat("a", "alpha", nil, newTestChannel("a", "alpha", ce("a.v2", "a.v1"), ce("a.v1", ""))),
			V0Query{Channel: "alpha", Installed: inst("a.v1", "0.0.0")}, "a.v2", ""},
		{"step_resolver_test.go: InstalledSub/UpdateInHead/SkipRange",
			v0Cat("a", "alpha", map[string]string{"a.v3": "1.0.0"}, newTestChannel("a", "alpha", cer("a.v3", "a.v2", "< 1.0.0"))),
			V0Query{Channel: "alpha", Installed: inst("a.v1", "0.0.0")}, "a.v3", ""},
		// The three bundles share version 1.0.0 (opm would reject the
		// catalog); the head's range excludes 0.0.0, so the next entry of
		// the chain is taken.
		{"step_resolver_test.go: InstalledSub/UpdatesAvailable/SkipRangeNotInHead",
			v0Cat("a", "alpha", map[string]string{"a.v2": "1.0.0", "a.v3": "1.0.0", "a.v4": "1.0.0"}, newTestChannel("a", "alpha",
				cer("a.v2", "", "< 1.0.0"), cer("a.v3", "a.v2", "< 1.0.0"), cer("a.v4", "a.v3", "< 1.0.0 !0.0.0"))),
			V0Query{Channel: "alpha", Installed: inst("a.v1", "0.0.0")}, "a.v3", ""},
		{"step_resolver_test.go: NewSub/StartingCSV",
			v0Cat("a", "alpha", map[string]string{"a.v3": "1.0.0"}, newTestChannel("a", "alpha", ce("a.v1", ""), ce("a.v2", "a.v1"), cer("a.v3", "a.v2", "< 1.0.0"))),
			V0Query{Channel: "alpha", StartingCSV: "a.v2"}, "a.v2", ""},
		{"step_resolver_test.go: InstalledSub/UpdatesAvailable/SpecifiedSkips",
			v0Cat("a", "alpha", map[string]string{"a.v2": "1.0.0", "a.v3": "1.0.0"}, newTestChannel("a", "alpha", ce("a.v2", "", "a.v1"), ce("a.v3", "a.v2", "a.v1"))),
			V0Query{Channel: "alpha", Installed: inst("a.v1", "0.0.0")}, "a.v3", ""},
		// spec §1.4: skipped entries are never targets (operator-registry#1744).
		{"skipped entry is never a target: 1.15.0 cannot go to the skipped 1.15.1",
			v0Cat("p", "s", map[string]string{"p.v1.15.0": "1.15.0", "p.v1.15.1": "1.15.1", "p.v1.16.0": "1.16.0"},
				newTestChannel("p", "s", ce("p.v1.15.0", ""), ce("p.v1.15.1", "p.v1.15.0"), ce("p.v1.16.0", "p.v1.15.1", "p.v1.15.1"))),
			V0Query{Channel: "s", Installed: inst("p.v1.15.0", "1.15.0")}, "", ""},
		{"tolerant installed version matches a skipRange",
			v0Cat("p", "s", map[string]string{"p.v2": "2.0.0"}, newTestChannel("p", "s", cer("p.v2", "", "<2.0.0"))),
			V0Query{Channel: "s", Installed: inst("p.v1", "v1.5")}, "p.v2", ""},
		{"an invalid skipRange is ignored",
			v0Cat("p", "s", map[string]string{"p.v2": "2.0.0"}, newTestChannel("p", "s", cer("p.v2", "", ">v0.1.0"))),
			V0Query{Channel: "s", Installed: inst("p.v1", "1.0.0")}, "", ""},
		{"the closest candidate to the head wins, skipRange on an inner entry counts",
			v0Cat("p", "s", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"},
				newTestChannel("p", "s", ce("p.v1", ""), declcfg.ChannelEntry{Name: "p.v2", Replaces: "p.v1", SkipRange: "<2.0.0"}, ce("p.v3", "p.v2"))),
			V0Query{Channel: "s", Installed: inst("p.v0", "0.5.0")}, "p.v2", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, err := tc.pkg.V0Next(tc.q)
			if errString(err) != tc.err {
				t.Fatalf("error = %q, want %q", errString(err), tc.err)
			}
			got := ""
			if next != nil {
				got = next.Name
			}
			if got != tc.want {
				t.Errorf("next = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestResolveV0Path: the path to the head hop by hop, and where it stops.
func TestResolveV0Path(t *testing.T) {
	// infinispan-like: 2.3.8 skips 2.3.0..2.3.7 and replaces 2.3.7; 2.4.0
	// replaces 2.3.8.
	pkg := v0Cat("p", "s", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0", "p.v4": "4.0.0"},
		newTestChannel("p", "s", ce("p.v1", ""), ce("p.v2", "p.v1"), ce("p.v3", "p.v2", "p.v2"), ce("p.v4", "p.v3")))
	r := pkg.ResolveV0(V0Query{Channel: "s", Installed: &Installed{Name: "p.v1", Version: "1.0.0"}})
	if r.Error != "" || r.Head != "p.v4" || r.Next != nil || r.ReachesHead {
		t.Errorf("from p.v1 (its successor p.v2 is skipped): %+v", r)
	}
	r = pkg.ResolveV0(V0Query{Channel: "s", Installed: &Installed{Name: "p.v2", Version: "2.0.0"}})
	var hops []string
	for _, h := range r.PathToHead {
		hops = append(hops, h.Name)
	}
	if !slices.Equal(hops, []string{"p.v3", "p.v4"}) || !r.ReachesHead || r.Next.Name != "p.v3" || r.Semantics != SemanticsV0 {
		t.Errorf("from p.v2: %+v", r)
	}
	if len(r.Next.Via) != 2 || r.Next.Via[0].Type != EdgeReplaces || r.Next.Via[1].Type != EdgeSkips {
		t.Errorf("via = %+v", r.Next.Via)
	}
	r = pkg.ResolveV0(V0Query{Channel: "s", Installed: &Installed{Name: "p.v4", Version: "4.0.0"}})
	if len(r.PathToHead) != 0 || !r.ReachesHead {
		t.Errorf("from the head: %+v", r)
	}
}

// TestV0Prohibited: a bundle with the legacy olm.deprecated property gets
// a Prohibited constraint in OLM v0's resolver (operator-lifecycle-manager
// pkg/controller/registry/resolver/variable_types.go
// NewBundleVariableFromOperator): never a candidate, never a hop; the
// subscription's next preference is taken, else it stays (stranded).
func TestV0Prohibited(t *testing.T) {
	legacy := declcfg.Property{Type: "olm.deprecated", Value: []byte(`{}`)}
	cat := func(prohibited []string, entries ...declcfg.ChannelEntry) *Package {
		cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage("p", "s")}, Channels: []declcfg.Channel{newTestChannel("p", "s", entries...)}}
		for _, e := range entries {
			v := strings.TrimPrefix(e.Name, "p.v")
			b := simpleBundle("p", e.Name, v)
			if slices.Contains(prohibited, e.Name) {
				b.Properties = append(b.Properties, legacy)
			}
			cfg.Bundles = append(cfg.Bundles, b)
		}
		return Convert(cfg).Package("p")
	}
	chain := []declcfg.ChannelEntry{ce("p.v1.0.0", ""), ce("p.v2.0.0", "p.v1.0.0"), ce("p.v3.0.0", "p.v2.0.0")}
	inst := func(v string) *Installed { return &Installed{Name: "p.v" + v, Version: v} }
	for _, tc := range []struct {
		name     string
		pkg      *Package
		q        V0Query
		next     string
		path     []string
		stranded string // the Prohibited bundle it stops before
		err      string
	}{
		{"issue 24: 1.0.0 → 2.0.0 (legacy-deprecated) → 3.0.0: OLM v0 stays at 1.0.0", cat([]string{"p.v2.0.0"}, chain...),
			V0Query{Channel: "s", Installed: inst("1.0.0")}, "", nil, "p.v2.0.0", ""},
		{"past the Prohibited bundle the chain goes on", cat([]string{"p.v2.0.0"}, chain...),
			V0Query{Channel: "s", Installed: inst("2.0.0")}, "p.v3.0.0", []string{"p.v3.0.0"}, "", ""},
		{"a lower preference that is not Prohibited is taken",
			cat([]string{"p.v3.0.0"}, ce("p.v1.0.0", ""), ce("p.v2.0.0", "p.v1.0.0"), ce("p.v3.0.0", "p.v2.0.0", "p.v1.0.0")),
			V0Query{Channel: "s", Installed: inst("1.0.0")}, "p.v2.0.0", []string{"p.v2.0.0"}, "p.v3.0.0", ""},
		{"a new install never takes a Prohibited head", cat([]string{"p.v3.0.0"}, chain...),
			V0Query{Channel: "s"}, "p.v2.0.0", []string{"p.v2.0.0"}, "p.v3.0.0", ""},
		{"not even by startingCSV", cat([]string{"p.v2.0.0"}, chain...),
			V0Query{Channel: "s", StartingCSV: "p.v2.0.0"}, "", nil, "", "no installable bundle in package p: every candidate has the legacy olm.deprecated property (Prohibited)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, err := tc.pkg.V0Next(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if next != nil {
				got = next.Name
			}
			if got != tc.next {
				t.Errorf("next %q, want %q", got, tc.next)
			}
			r := tc.pkg.ResolveV0(tc.q)
			if r.Error != tc.err {
				t.Fatalf("error %q, want %q", r.Error, tc.err)
			}
			var path []string
			for _, h := range r.PathToHead {
				path = append(path, h.Name)
			}
			if !slices.Equal(path, tc.path) {
				t.Errorf("path %q, want %q", path, tc.path)
			}
			gotS := ""
			if r.Stranded != nil {
				gotS = r.Stranded.Bundle
				if r.Stranded.Property != "olm.deprecated" || !strings.Contains(r.Stranded.Message, "OLM v0 never installs "+gotS) {
					t.Errorf("stranded %+v", r.Stranded)
				}
			}
			if gotS != tc.stranded {
				t.Errorf("stranded at %q, want %q", gotS, tc.stranded)
			}
		})
	}
}
