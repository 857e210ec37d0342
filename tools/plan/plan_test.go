package plan

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/path"
)

func minor(t *testing.T, s string) Minor {
	t.Helper()
	m, err := ParseMinor(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBlocks pins OLM's rule, normalize(max) < nextY(normalize(at)) with
// 4.23 ≡ 5.0 (operator-lifecycle-manager helpers.go at 992bb09).
func TestBlocks(t *testing.T) {
	for _, tc := range []struct {
		max, at string
		blocks  bool
	}{
		{"4.20", "4.20", true},
		{"4.21", "4.20", false},
		{"4.19", "4.20", true},
		{"4.21", "4.21", true},
		{"4.22", "4.21", false},
		// The 5.0 hop: OLM compares with 4.23, and 4.23 is 5.0.
		{"4.22", "4.22", true},
		{"4.23", "4.22", false},
		{"5.0", "4.22", false},
		{"5.1", "4.22", false},
		// At 5.0, 4.23 is 5.0: it blocks 5.1.
		{"4.23", "5.0", true},
		{"5.0", "5.0", true},
		{"4.22", "5.0", true},
		{"5.1", "5.0", false},
		// A cluster reporting 4.23 is a 5.0 one.
		{"5.0", "4.23", true},
		{"5.1", "4.23", false},
	} {
		if got := Blocks(minor(t, tc.max), minor(t, tc.at)); got != tc.blocks {
			t.Errorf("Blocks(max %s, at %s) = %v, want %v", tc.max, tc.at, got, tc.blocks)
		}
	}
}

// TestAllows: Blocks at the source minor, plus the target's minor for an
// update that skips one.
func TestAllows(t *testing.T) {
	for _, tc := range []struct {
		max, from, to string
		ok            bool
	}{
		{"4.23", "4.22", "5.0", true},
		{"5.0", "4.22", "5.0", true},
		{"4.22", "4.22", "5.0", false},
		{"4.21", "4.20", "4.21", true},
		// Skipping 4.21: OLM only checks 4.21, the operator must run on 4.22.
		{"4.21", "4.20", "4.22", false},
		{"4.22", "4.20", "4.22", true},
		// 4.20 → 5.0 skips 4.21 and 4.22 (hypothetical): 4.23 ≡ 5.0 is enough.
		{"4.23", "4.20", "5.0", true},
		{"4.22", "4.20", "5.0", false},
		// OLM's comparison exactly: a (meaningless) 4.24 is at least 4.23.
		{"4.24", "4.22", "5.0", true},
	} {
		if got := Allows(minor(t, tc.max), minor(t, tc.from), minor(t, tc.to)); got != tc.ok {
			t.Errorf("Allows(max %s, %s → %s) = %v, want %v", tc.max, tc.from, tc.to, got, tc.ok)
		}
	}
}

func TestParseMinor(t *testing.T) {
	for s, want := range map[string]Minor{"4.21": {4, 21}, "v4.21": {4, 21}, "v5.0": {5, 0}, "0.0": {0, 0}} {
		if got, err := ParseMinor(s); err != nil || got != want {
			t.Errorf("ParseMinor(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "v", "4", "4.", ".1", "4.21.0", "04.21", "4.021", "V4.21", "4.x", "4.-1", "+4.21", " 4.21"} {
		if m, err := ParseMinor(s); err == nil {
			t.Errorf("ParseMinor(%q) = %v, want an error", s, m)
		}
	}
	if m := (Minor{4, 23}); m.Normalize() != (Minor{5, 0}) || m.Key() != "v4.23" || m.NextY() != (Minor{4, 24}) {
		t.Errorf("4.23: Normalize %v, Key %s, NextY %v", m.Normalize(), m.Key(), m.NextY())
	}
}

// TestMinors: the minors come from the path's releases: after 4.22
// comes whatever the path lands on (5.0), z-stream hops add none.
func TestMinors(t *testing.T) {
	rel := &path.Report{From: "4.21.3", To: "5.0.1", Found: true, Hops: []path.ReportHop{
		{Hop: path.Hop{From: "4.21.3", To: "4.21.4"}},
		{Hop: path.Hop{From: "4.21.4", To: "4.22.1"}},
		{Hop: path.Hop{From: "4.22.1", To: "5.0.0-ec.6"}},
		{Hop: path.Hop{From: "5.0.0-ec.6", To: "5.0.1"}},
	}}
	cross, minors, err := crossings(rel)
	if err != nil {
		t.Fatal(err)
	}
	if got := minorList(minors); got != "4.21 → 4.22 → 5.0" {
		t.Errorf("minors %s", got)
	}
	if len(cross) != 2 || cross[1].relFrom != "4.22.1" || cross[1].relTo != "5.0.0-ec.6" || cross[1].to != (Minor{5, 0}) {
		t.Errorf("crossings %+v", cross)
	}
	ms, err := Minors(&path.Report{From: "4.21.3", To: "4.22.0"})
	if err != nil || minorList(ms) != "4.21" {
		t.Errorf("no path: minors %v, %v", ms, err)
	}
}

// catalog converts an FBC written as a YAML stream.
func catalog(t *testing.T, yaml string) *model.Catalog {
	t.Helper()
	cfg, err := declcfg.LoadFS(context.Background(), fstest.MapFS{"catalog.yaml": {Data: []byte(yaml)}})
	if err != nil {
		t.Fatal(err)
	}
	return model.Convert(cfg)
}

// fbc writes a one-channel package: entries "VERSION[<REPLACED][~RANGE]",
// each bundle's maxOpenShiftVersion from max ("" none).
func fbc(pkg, channel string, entries []string, max map[string]string) string {
	var b strings.Builder
	b.WriteString("---\nschema: olm.package\nname: " + pkg + "\ndefaultChannel: " + channel + "\n")
	b.WriteString("---\nschema: olm.channel\npackage: " + pkg + "\nname: " + channel + "\nentries:\n")
	var versions []string
	for _, e := range entries {
		v, rng, _ := strings.Cut(e, "~")
		v, repl, _ := strings.Cut(v, "<")
		versions = append(versions, v)
		b.WriteString("- name: " + pkg + ".v" + v + "\n")
		if repl != "" {
			b.WriteString("  replaces: " + pkg + ".v" + repl + "\n")
		}
		if rng != "" {
			b.WriteString("  skipRange: '" + rng + "'\n")
		}
	}
	for _, v := range versions {
		b.WriteString("---\nschema: olm.bundle\nname: " + pkg + ".v" + v + "\npackage: " + pkg + "\nimage: example.com/" + pkg + ":v" + v +
			"\nproperties:\n- type: olm.package\n  value: {packageName: " + pkg + ", version: " + v + "}\n")
		if m := max[v]; m != "" {
			b.WriteString("- type: olm.maxOpenShiftVersion\n  value: \"" + m + "\"\n")
		}
	}
	return b.String()
}

func release(hops ...string) *path.Report {
	r := &path.Report{From: hops[0], To: hops[len(hops)-1], Channel: "c", Arch: "amd64", Channels: []string{"c"}, Found: true}
	for i := 0; i+1 < len(hops); i++ {
		r.Hops = append(r.Hops, path.ReportHop{Hop: path.Hop{From: hops[i], To: hops[i+1]}, Channels: []string{"c"}})
	}
	return r
}

// TestCompute: per hop, the required update is the first bundle on the
// path that allows the next minor; an installed bundle the next catalog
// lacks is followed by its edges there, with either runtime.
func TestCompute(t *testing.T) {
	v422 := catalog(t, fbc("op", "stable", []string{"1.0.0", "1.1.0<1.0.0", "1.2.0<1.1.0", "1.3.0<1.2.0"},
		map[string]string{"1.0.0": "4.22", "1.1.0": "4.22", "1.2.0": "4.23", "1.3.0": "5.0"}))
	v50 := catalog(t, fbc("op", "stable", []string{"2.0.0~>=1.0.0 <2.0.0"}, nil))
	for _, olm := range []upgrade.Runtime{upgrade.V0, upgrade.V1} {
		p, err := Compute(Request{Release: release("4.22.1", "5.0.0"), OLM: olm,
			Catalogs:  []Catalog{{Minor: Minor{4, 22}, Key: "v4.22", Source: "a", Model: v422}, {Minor: Minor{5, 0}, Key: "v5.0", Source: "b", Model: v50}},
			Operators: []mirrorset.Install{{Package: "op", Version: "1.0.0"}}})
		if err != nil {
			t.Fatal(err)
		}
		if p.Blocked || len(p.Hops) != 1 || p.Hops[0].OLMChecks != "4.23" {
			t.Fatalf("%s: %+v", olm, p)
		}
		oh := p.Hops[0].Operators[0]
		if oh.State != StateUpdateRequired || oh.Update.To.Name != "op.v1.2.0" {
			t.Errorf("%s: %s %+v, want an update to op.v1.2.0 (4.23 ≡ 5.0), the first that allows 5.0", olm, oh.State, oh.Update)
		}
		if n := oh.Next; n.State != NextReachesHead || n.InChannel || n.Route.Hops[0].To.Name != "op.v2.0.0" {
			t.Errorf("%s: next %+v, want op.v2.0.0's skipRange edge from op.v1.2.0", olm, n)
		}
	}
}

// TestComputeBlocked: nothing on the path allows the next minor; the
// cluster at 5.0 is compared with 5.1 (4.23 is 5.0 there).
func TestComputeBlocked(t *testing.T) {
	v50 := catalog(t, fbc("op", "stable", []string{"1.0.0", "1.1.0<1.0.0"}, map[string]string{"1.0.0": "4.23", "1.1.0": "5.0"}))
	v51 := catalog(t, fbc("op", "stable", []string{"1.1.0"}, nil))
	p, err := Compute(Request{Release: release("5.0.2", "5.1.0"), OLM: upgrade.V0,
		Catalogs:  []Catalog{{Minor: Minor{5, 0}, Key: "v5.0", Model: v50}, {Minor: Minor{5, 1}, Key: "v5.1", Model: v51}},
		Operators: []mirrorset.Install{{Package: "op", Version: "1.0.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	oh := p.Hops[0].Operators[0]
	if !p.Blocked || oh.State != StateBlocked || len(p.Blockers) != 1 || p.Blockers[0].Hop != "5.0 → 5.1" || !oh.Path.Found {
		t.Errorf("%+v\n%+v", p.Blockers, oh)
	}
}

// TestComputeErrors: what the request cannot be answered without.
func TestComputeErrors(t *testing.T) {
	v422 := catalog(t, fbc("op", "stable", []string{"1.0.0"}, nil))
	cats := []Catalog{{Minor: Minor{4, 22}, Key: "v4.22", Model: v422}}
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"missing catalog", Request{Release: release("4.22.0", "5.0.0"), Catalogs: cats, OLM: upgrade.V0}, "no catalog for v5.0"},
		{"unknown package", Request{Release: release("4.22.0", "4.22.1"), Catalogs: cats, OLM: upgrade.V0,
			Operators: []mirrorset.Install{{Package: "nope", Version: "1.0.0"}}}, `has no package "nope"`},
		{"unknown bundle", Request{Release: release("4.22.0", "4.22.1"), Catalogs: cats, OLM: upgrade.V0,
			Operators: []mirrorset.Install{{Package: "op", Version: "9.9.9"}}}, "no bundle named or versioned"},
		{"catalog key", Request{Release: release("4.22.0", "4.22.1"), Catalogs: cats, OLM: upgrade.V0,
			Operators: []mirrorset.Install{{Catalog: "x", Package: "op", Version: "1.0.0"}}}, "one catalog per minor"},
		{"target key", Request{Release: release("4.22.0", "4.22.1"), Catalogs: cats, OLM: upgrade.V0,
			Operators: []mirrorset.Install{{Package: "op", Version: "1.0.0", Target: "head"}}}, "leave target out"},
		{"runtime", Request{Release: release("4.22.0", "4.22.1"), Catalogs: cats, OLM: "v2"}, "want v0"},
	} {
		_, err := Compute(tc.req)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an *Error with %q", tc.name, err, tc.want)
		}
	}
}

// TestSkippedMinorMessages: a hop that skips a minor (4.20 → 4.22) is
// checked by OLM against 4.21 only (nextY of the cluster's minor) and by
// upgraph against 4.22 as well, its stricter policy. The report says
// which rule blocks and never that 4.21 ≡ 4.22 (issue 24 item 6); the
// 4.22 → 5.0 hop still says 4.23 ≡ 5.0.
func TestSkippedMinorMessages(t *testing.T) {
	text := func(p *Plan) string {
		var b strings.Builder
		if err := p.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	plan := func(from, to string, fm, tm Minor, max map[string]string) *Plan {
		t.Helper()
		cat := catalog(t, fbc("op", "stable", []string{"1.0.0", "1.1.0<1.0.0"}, max))
		p, err := Compute(Request{Release: release(from, to), OLM: upgrade.V0,
			Catalogs:  []Catalog{{Minor: fm, Key: fm.Key(), Source: "a", Model: cat}, {Minor: tm, Key: tm.Key(), Source: "b", Model: cat}},
			Operators: []mirrorset.Install{{Package: "op", Version: "1.0.0"}}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 4.21 passes OLM's check at 4.20 but not upgraph's for 4.22.
	p := plan("4.20.1", "4.22.0", Minor{4, 20}, Minor{4, 22}, map[string]string{"1.0.0": "4.21", "1.1.0": "4.22"})
	out := text(p)
	oh := p.Hops[0].Operators[0]
	if oh.State != StateUpdateRequired || oh.Update == nil || oh.Update.To.Name != "op.v1.1.0" {
		t.Errorf("state %s, update %+v: want an update to op.v1.1.0 (4.22)", oh.State, oh.Update)
	}
	for _, bad := range []string{"≡ 4.22", "(≡ 4.22)", "OLM blocks the update to 4.22"} {
		if strings.Contains(out, bad) {
			t.Errorf("the report says %q:\n%s", bad, out)
		}
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"below 4.21, the next minor after 4.20; the hop skips 4.21, so upgraph also requires 4.22"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if want := "op.v1.0.0 has maxOpenShiftVersion 4.21: OLM lets the cluster leave 4.20 (it checks 4.21, the next minor), but the hop skips to 4.22"; !strings.Contains(oh.Message, want) ||
		!strings.Contains(oh.Message, "upgraph blocks the update to 4.22 (its policy for a hop that skips a minor, stricter than OLM's)") {
		t.Errorf("message %q, want %q and upgraph's policy named", oh.Message, want)
	}
	// Below 4.21 OLM itself blocks.
	p = plan("4.20.1", "4.22.0", Minor{4, 20}, Minor{4, 22}, map[string]string{"1.0.0": "4.20", "1.1.0": "4.22"})
	if m := p.Hops[0].Operators[0].Message; !strings.HasPrefix(m, "op.v1.0.0 has maxOpenShiftVersion 4.20: OLM blocks the update to 4.22;") {
		t.Errorf("OLM's own block: %q", m)
	}
	// The 5.0 hop: OLM checks 4.23, which is 5.0.
	p = plan("4.22.1", "5.0.0", Minor{4, 22}, Minor{5, 0}, map[string]string{"1.0.0": "4.22", "1.1.0": "4.23"})
	if out := strings.Join(strings.Fields(text(p)), " "); !strings.Contains(out, "below 4.23 (≡ 5.0); updates come from") {
		t.Errorf("5.0 hop:\n%s", out)
	}
	if m := p.Hops[0].Operators[0].Message; !strings.HasPrefix(m, "op.v1.0.0 has maxOpenShiftVersion 4.22: OLM blocks the update to 5.0;") {
		t.Errorf("5.0 hop: %q", m)
	}
}

// TestComputeRefusedAndProhibited: the runtimes' own refusals cut the
// route short. v4.22: 1.0.0 (max 4.22) → 1.1.0 → 1.2.0 (allows 5.0), and
// 1.1.0 declares olm.package.required (OLM v1 refuses it) and has the
// legacy olm.deprecated property (OLM v0 never installs it): either
// runtime stays on 1.0.0, the hop to 5.0 is blocked, and the message
// says why.
func TestComputeRefusedAndProhibited(t *testing.T) {
	y := fbc("op", "stable", []string{"1.0.0", "1.1.0<1.0.0", "1.2.0<1.1.0"}, map[string]string{"1.0.0": "4.22", "1.2.0": "5.0"})
	y = strings.Replace(y, "  value: {packageName: op, version: 1.1.0}\n",
		"  value: {packageName: op, version: 1.1.0}\n- type: olm.package.required\n  value: {packageName: cert-manager, versionRange: '>=1.0.0'}\n- type: olm.deprecated\n  value: {}\n", 1)
	v422 := catalog(t, y)
	v50 := catalog(t, fbc("op", "stable", []string{"1.2.0"}, nil))
	for olm, want := range map[upgrade.Runtime]string{
		upgrade.V1: "refused-by-v1: OLM v1 cannot update op.v1.0.0: op.v1.1.0 declares olm.package.required",
		upgrade.V0: "prohibited: OLM v0 cannot update op.v1.0.0: its next bundle op.v1.1.0 has the legacy olm.deprecated property",
	} {
		p, err := Compute(Request{Release: release("4.22.1", "5.0.0"), OLM: olm,
			Catalogs:  []Catalog{{Minor: Minor{4, 22}, Key: "v4.22", Model: v422}, {Minor: Minor{5, 0}, Key: "v5.0", Model: v50}},
			Operators: []mirrorset.Install{{Package: "op", Version: "1.0.0"}}})
		if err != nil {
			t.Fatal(err)
		}
		oh := p.Hops[0].Operators[0]
		if !p.Blocked || oh.State != StateBlocked || !strings.Contains(oh.Message, want) {
			t.Errorf("%s: blocked %v, %s: %s\nwant %q", olm, p.Blocked, oh.State, oh.Message, want)
		}
	}
}

// TestComputeCatalogSet: with several catalogs per minor, an operator
// names the one it is installed from; OLM v1 resolves across the
// minor's catalogs (the higher priority wins, its refusal blocks), OLM
// v0 follows the operator's own catalog.
func TestComputeCatalogSet(t *testing.T) {
	max := map[string]string{"1.0.0": "4.22", "1.1.0": "5.0"}
	a := catalog(t, fbc("op", "stable", []string{"1.0.0", "1.1.0<1.0.0"}, max))
	b := catalog(t, fbc("op", "stable", []string{"1.0.0", "1.1.0<1.0.0"}, max))
	bDep := catalog(t, strings.Replace(fbc("op", "stable", []string{"1.0.0", "1.1.0<1.0.0"}, max),
		"  value: {packageName: op, version: 1.1.0}\n", "  value: {packageName: op, version: 1.1.0}\n- type: olm.gvk.required\n  value: {group: g, kind: K, version: v1}\n", 1))
	v50 := catalog(t, fbc("op", "stable", []string{"1.1.0"}, nil))
	set := func(bm *model.Catalog) []Catalog {
		return []Catalog{
			{Minor: Minor{4, 22}, Key: "v4.22", Name: "a", Model: a}, {Minor: Minor{4, 22}, Key: "v4.22", Name: "b", Priority: 5, Model: bm},
			{Minor: Minor{5, 0}, Key: "v5.0", Name: "a", Model: v50}, {Minor: Minor{5, 0}, Key: "v5.0", Name: "b", Priority: 5, Model: v50},
		}
	}
	for _, tc := range []struct {
		name    string
		cats    []Catalog
		olm     upgrade.Runtime
		state   string
		catalog string // the update's hop catalog
		msg     string
	}{
		{"v1: the update comes from the higher-priority catalog", set(b), upgrade.V1, StateUpdateRequired, "b", ""},
		{"v0: the operator's own catalog", set(b), upgrade.V0, StateUpdateRequired, "", ""},
		{"v1: the winner's refusal blocks", set(bDep), upgrade.V1, StateBlocked, "", "refused-by-v1: OLM v1 cannot update op.v1.0.0: op.v1.1.0 declares olm.gvk.required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compute(Request{Release: release("4.22.1", "5.0.0"), OLM: tc.olm, Catalogs: tc.cats,
				Operators: []mirrorset.Install{{Catalog: "a", Package: "op", Version: "1.0.0"}}})
			if err != nil {
				t.Fatal(err)
			}
			oh := p.Hops[0].Operators[0]
			if oh.State != tc.state || !strings.Contains(oh.Message, tc.msg) {
				t.Fatalf("%s: %s", oh.State, oh.Message)
			}
			if tc.state == StateUpdateRequired && (oh.Update.To.Name != "op.v1.1.0" || oh.Update.Hops[0].Catalog != tc.catalog) {
				t.Errorf("update %+v", oh.Update)
			}
			if p.Operators[0].Catalog != "a" || len(p.Catalogs) != 4 {
				t.Errorf("operators %+v catalogs %+v", p.Operators, p.Catalogs)
			}
		})
	}
	_, err := Compute(Request{Release: release("4.22.1", "5.0.0"), OLM: upgrade.V1, Catalogs: set(b),
		Operators: []mirrorset.Install{{Package: "op", Version: "1.0.0"}}})
	if err == nil || !strings.Contains(err.Error(), "catalogs a, b have the package: name the one its Subscription uses") {
		t.Errorf("no catalog named: %v", err)
	}
}
