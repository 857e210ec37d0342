package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	clusterplan "github.com/upgraph/upgraph/tools/plan"
	"github.com/upgraph/upgraph/tree/writer"
)

const (
	planFixtures = "testdata/plan"
	planGolden   = "testdata/plan/golden"
	planSchema   = "../../schema/cli/plan.schema.json"
)

func init() {
	// The demo tree (4.15 → 4.16) with one catalog for both minors and an
	// operator that allows 4.16: a plan without blockers. The fixture is
	// named by absolute path (the runs work in a scratch directory).
	abs, err := filepath.Abs(filepath.Join(planFixtures, "flags"))
	if err != nil {
		panic(err)
	}
	cat := "dir:" + filepath.Join(abs, "catalog")
	flagTestBases["plan"] = flagBase{args: "plan --source {tree} --channel stable-4.16 --from 4.15.0 --to 4.16.1 --operators " +
		filepath.Join(abs, "operators.yaml") + " --catalogs v4.15=" + cat + ",v4.16=" + cat}
	invalidFlags["plan --from"] = badFlag{bad: badVersions}
	invalidFlags["plan --to"] = badFlag{bad: badVersions}
	invalidFlags["plan --channel"] = badFlag{bad: badChannelNames}
	invalidFlags["plan --operators"] = badFlag{bad: []string{"", "missing", "emptydir", "file.txt"}} // file.txt is no list
	// emptydir is a valid, empty catalog: alone it leaves v4.16 without
	// one; "missing" names no file, so a catalog of the tree, which the
	// demo tree lacks.
	invalidFlags["plan --catalogs"] = badFlag{bad: []string{"", "noequals", "4=emptydir", "vx.y=emptydir", "v4.15=", "v4.15=emptydir",
		"v4.15=emptydir,v4.15=emptydir", "v4.15=dir:file.txt,v4.16=emptydir", "v4.15=missing,v4.16=emptydir", "v4.15=image:quay.io/Bad Ref,v4.16=emptydir"}}
	invalidFlags["plan --olm"] = badFlag{bad: []string{"", "v2"}}
}

// planTree generates the plan fixture's tree: releases 4.20.0–5.0.1
// (amd64) in stable/fast/candidate-4.21 and -4.22, eus-4.22 and
// candidate-5.0 (4.22.z and 5.0.z), a conditional edge 4.20.0 → 4.21.0,
// and the fixture's catalogs as ocp-v4-20 … ocp-v5-0.
func planTree(t testing.TB) string {
	t.Helper()
	built, err := generator.Build(t.Context(), &source.MetadataDir{Dir: filepath.Join(planFixtures, "releases")},
		os.DirFS(filepath.Join(planFixtures, "graph-data")), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	var cats []*catviews.Catalog
	for _, m := range []string{"4.20", "4.21", "4.22", "5.0"} {
		cats = append(cats, viewstest.Load(t, treeCatalogName(m), "dir:"+filepath.Join(planFixtures, "catalogs", "v"+m), false))
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(t.Context(), built, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), Catalogs: cats}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// treeCatalogName is the tree's name of the catalog of minor m.
func treeCatalogName(m string) string { return "ocp-v" + strings.ReplaceAll(m, ".", "-") }

// planCatalogsFlag is --catalogs for the minors: the fixture's
// directories, or (tree) the tree's catalogs.
func planCatalogsFlag(tree bool, minors ...string) string {
	var parts []string
	for _, m := range minors {
		src := "dir:" + filepath.Join(planFixtures, "catalogs", "v"+m)
		if tree {
			src = treeCatalogName(m)
		}
		parts = append(parts, "v"+m+"="+src)
	}
	return strings.Join(parts, ",")
}

// planCases are the plans testdata/plan/golden pins (the fixture's
// catalogs.yaml comments say what each package shows).
var planCases = []struct {
	name string
	args []string
	code int
}{
	// 4.22 → 5.0: bridge-op (4.22) must update to 1.2.0 (4.23 ≡ 5.0);
	// stuck-op (4.22) has nothing that allows 5.0 in its channel: blocked;
	// equiv-op (4.23) and major-op (5.0) are compatible; free-op's channel
	// is gone from v5.0; odd-op's invalid value blocks until 1.0.1;
	// deprecations ahead of bridge-op (bundle) and major-op (package).
	{"major", []string{"--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1",
		"--operators", "testdata/plan/operators-major.yaml", "--catalogs", planCatalogsFlag(false, "4.22", "5.0")}, 1},
	// EUS 4.20 → 4.22 through 4.21 (a conditional first hop): early-op
	// updates before 4.21, eus-op at 4.21 (its update is only in v4.21);
	// renamed-op's channel is deprecated in v4.21 and gone in v4.22;
	// skipper-op is stranded after a skip in v4.21 (OLM v0).
	{"eus", []string{"--channel", "eus-4.22", "--via-eus", "--from", "4.20.0", "--to", "4.22.0",
		"--operators", "testdata/plan/operators-eus.yaml", "--catalogs", planCatalogsFlag(false, "4.20", "4.21", "4.22")}, 0},
	// The same with OLM v1, which takes skipper-op through the entry OLM
	// v0 drops.
	{"eus-v1", []string{"--channel", "eus-4.22", "--via-eus", "--from", "4.20.0", "--to", "4.22.0", "--olm", "v1",
		"--operators", "testdata/plan/operators-eus.yaml", "--catalogs", planCatalogsFlag(false, "4.20", "4.21", "4.22")}, 0},
	// 4.20 → 5.0 with --via-eus: eus-4.22 then candidate-5.0, four minors,
	// v5.0 lacks the packages; an unused catalog is noted.
	{"through", []string{"--channel", "candidate-5.0", "--via-eus", "--from", "4.20.1", "--to", "5.0.1",
		"--operators", "testdata/plan/operators-eus.yaml", "--catalogs", planCatalogsFlag(false, "4.20", "4.21", "4.22", "5.0"),
		"--catalogs", "v4.19=dir:testdata/plan/catalogs/v4.20"}, 0},
	// 4.22 → 5.0 where the runtimes refuse updates: OLM v0 updates
	// needs-op to 1.1.0 (it solves the dependency: cert-manager provides
	// the Certificate API in v4.22 and v5.0, named in the plan) and cannot
	// move prohibited-op (its only update is Prohibited): blocked; in v5.0
	// the Prohibited 2.0.0 strands prohibited-op again.
	{"gated", []string{"--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1",
		"--operators", "testdata/plan/operators-gated.yaml", "--catalogs", planCatalogsFlag(false, "4.22", "5.0")}, 1},
	// The same with OLM v1: needs-op's update declares olm.gvk.required,
	// refused with no fallback: blocked (and refused again in v5.0, whose
	// 2.0.0 declares olm.package.required); prohibited-op updates to
	// 1.1.0 (OLM v1 ignores the legacy property), then reaches 2.1.0.
	{"gated-v1", []string{"--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1", "--olm", "v1",
		"--operators", "testdata/plan/operators-gated.yaml", "--catalogs", planCatalogsFlag(false, "4.22", "5.0")}, 1},
	// The major case over a catalog set (--catalog-set: a catalog with a
	// source per minor and another one), with OLM v1 across them: the
	// same answers, each catalog listed with its priority.
	{"major-set-v1", []string{"--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1", "--olm", "v1",
		"--operators", "testdata/plan/operators-major.yaml", "--catalog-set", "testdata/plan/catalog-set-major.yaml"}, 1},
	// The gated case over a catalog set with OLM v1 (catalog-set-gated:
	// ocp at 4.22 over a lower-priority mirror, whose copy loses; ocp and
	// tie of equal priority at 5.0): needs-op's update from ocp is
	// refused (blocked); prohibited-op updates in ocp, then in v5.0 its
	// best bundle is in ocp and tie at the same priority: a tie, it
	// stays (stranded).
	{"gated-set-v1", []string{"--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1", "--olm", "v1",
		"--operators", "testdata/plan/operators-gated-set.yaml", "--catalog-set", "testdata/plan/catalog-set-gated.yaml"}, 1},
	// No path at all (a downgrade): blocked, operators resolved only.
	{"no-path", []string{"--channel", "stable-4.22", "--from", "4.22.1", "--to", "4.21.0",
		"--operators", "testdata/plan/operators-major.yaml", "--catalogs", planCatalogsFlag(false, "4.21", "4.22")}, 1},
}

// TestPlanGolden: the text and JSON plans of planCases are the reviewed
// ones in testdata/plan/golden (rewrite them with -update, then review
// the diff), with their exit statuses; every JSON plan is valid against
// schema/cli/plan.schema.json.
func TestPlanGolden(t *testing.T) {
	tree := planTree(t)
	sch := compilePlanSchema(t)
	for _, tc := range planCases {
		for _, format := range []string{"text", "json"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				args := append([]string{"--source", tree, "--format", format}, tc.args...)
				out, errOut, code := runCommand(planCommand(), args...)
				if code != tc.code {
					t.Fatalf("exit status %d, want %d; stderr:\n%s\nstdout:\n%s", code, tc.code, errOut, out)
				}
				ext := ".txt"
				if format == "json" {
					ext = ".json"
					validatePlan(t, sch, []byte(out))
				}
				golden := filepath.Join(planGolden, tc.name+ext)
				// -update is the package's flag (docs_test.go): it rewrites
				// the goldens of the tests run.
				if *updateDocs {
					if err := os.MkdirAll(planGolden, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test -run TestPlanGolden -update writes it)", err)
				}
				if out != string(want) {
					t.Errorf("%s differs (go test -run TestPlanGolden -update, then review the diff); first difference, %s",
						golden, firstLineDiff(string(want), out))
				}
			})
		}
	}
}

// runPlanJSON runs a plan case as JSON and decodes it.
func runPlanJSON(t *testing.T, tree string, args []string) (*clusterplan.Plan, string, int) {
	t.Helper()
	out, errOut, code := runCommand(planCommand(), append([]string{"--source", tree, "--format", "json"}, args...)...)
	var p clusterplan.Plan
	if code != 2 {
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
	}
	return &p, out, code
}

// operatorAt returns the package's state at the hop.
func operatorAt(t *testing.T, h clusterplan.Hop, pkg string) clusterplan.OperatorHop {
	t.Helper()
	i := slices.IndexFunc(h.Operators, func(o clusterplan.OperatorHop) bool { return o.Package == pkg })
	if i < 0 {
		t.Fatalf("hop %s → %s has no operator %s", h.From, h.To, pkg)
	}
	return h.Operators[i]
}

// TestPlanAcceptance is issue 19 item 3's acceptance: the 4.22 → 5.0 hop
// (4.22 blocks, 4.23 ≡ 5.0 and 5.0 do not, the required update is the
// first bundle on the path that allows 5.0), the EUS pair 4.20 → 4.22
// through 4.21 (each minor a hop), a channel gone from the next catalog,
// deprecations ahead, and the exit statuses.
func TestPlanAcceptance(t *testing.T) {
	tree := planTree(t)

	t.Run("4.22 to 5.0", func(t *testing.T) {
		for _, olm := range []string{"v0", "v1"} {
			p, out, code := runPlanJSON(t, tree, append(slices.Clone(planCases[0].args), "--olm", olm))
			if code != 1 || !p.Blocked {
				t.Fatalf("%s: exit %d, blocked %v, want 1 and blocked:\n%s", olm, code, p.Blocked, out)
			}
			if got := strings.Join(p.Minors, " "); got != "4.22 5.0" || len(p.Hops) != 1 {
				t.Fatalf("%s: minors %s, %d hops; want 4.22 5.0 (the minor after 4.22 is 5.0), 1 hop", olm, got, len(p.Hops))
			}
			h := p.Hops[0]
			if h.From != "4.22" || h.To != "5.0" || h.OLMChecks != "4.23" || !h.Blocked || h.FromCatalog != "v4.22" || h.ToCatalog != "v5.0" {
				t.Errorf("%s: hop %+v", olm, h)
			}
			bridge := operatorAt(t, h, "bridge-op")
			if bridge.State != clusterplan.StateUpdateRequired || bridge.Update.To.Name != "bridge-op.v1.2.0" ||
				bridge.Update.To.MaxOpenShiftVersion != "4.23" || len(bridge.Update.Hops) != 2 {
				t.Errorf("%s: bridge-op (4.22) %s %+v, want an update to 1.2.0 (4.23), 2 hops: 1.1.0 still says 4.22", olm, bridge.State, bridge.Update)
			}
			if bridge.Next.State != clusterplan.NextReachesHead || !bridge.Next.InChannel ||
				!slices.ContainsFunc(bridge.Deprecations, func(d upgrade.Deprecation) bool { return d.Schema == "olm.bundle" && d.Name == "bridge-op.v1.2.0" }) {
				t.Errorf("%s: bridge-op in v5.0: %+v %+v, want 1.2.0 in stable and its bundle deprecation ahead", olm, bridge.Next, bridge.Deprecations)
			}
			stuck := operatorAt(t, h, "stuck-op")
			if stuck.State != clusterplan.StateBlocked || stuck.Update != nil || len(stuck.OtherChannels) != 1 ||
				stuck.OtherChannels[0].Channel != "fast" || stuck.OtherChannels[0].To.Name != "stuck-op.v2.1.0" {
				t.Errorf("%s: stuck-op (4.22, head of stable): %s %+v, want blocked with channel fast (2.1.0) as a way out", olm, stuck.State, stuck.OtherChannels)
			}
			if len(p.Blockers) != 1 || p.Blockers[0].Package != "stuck-op" || p.Blockers[0].Hop != "4.22 → 5.0" {
				t.Errorf("%s: blockers %+v, want stuck-op's only", olm, p.Blockers)
			}
			for pkg, max := range map[string]string{"equiv-op": "4.23", "major-op": "5.0", "free-op": ""} {
				o := operatorAt(t, h, pkg)
				if o.State != clusterplan.StateCompatible || o.Installed.MaxOpenShiftVersion != max || o.Update != nil {
					t.Errorf("%s: %s (maxOpenShiftVersion %q) is %s, want compatible", olm, pkg, max, o.State)
				}
			}
			if o := operatorAt(t, h, "equiv-op"); o.Next.State != clusterplan.NextReachesHead || o.Next.InChannel {
				t.Errorf("%s: equiv-op in v5.0: %+v, want 3.0.0 absent but with 3.1.0's skipRange edge", olm, o.Next)
			}
			if o := operatorAt(t, h, "major-op"); len(o.Deprecations) != 1 || o.Deprecations[0].Schema != "olm.package" {
				t.Errorf("%s: major-op deprecations ahead %+v, want the package's", olm, o.Deprecations)
			}
			if o := operatorAt(t, h, "free-op"); o.Next.State != clusterplan.NextChannelGone || !slices.Equal(o.Next.Channels, []string{"stable-2"}) || o.Next.Route != nil {
				t.Errorf("%s: free-op in v5.0: %+v, want channel stable-1 gone (stable-2 there)", olm, o.Next)
			}
			if o := operatorAt(t, h, "odd-op"); o.State != clusterplan.StateUpdateRequired || o.Installed.MaxOpenShiftVersionError == "" || o.Update.To.Name != "odd-op.v1.0.1" {
				t.Errorf("%s: odd-op (invalid 4.22.1): %s %+v, want an update to 1.0.1 (OLM blocks on an invalid value)", olm, o.State, o.Update)
			}
		}
	})

	t.Run("EUS 4.20 to 4.22", func(t *testing.T) {
		p, out, code := runPlanJSON(t, tree, planCases[1].args)
		if code != 0 || p.Blocked || len(p.Blockers) != 0 {
			t.Fatalf("exit %d, blocked %v, want 0 and no blockers:\n%s", code, p.Blocked, out)
		}
		if len(p.Hops) != 2 || p.Hops[0].To != "4.21" || p.Hops[1].From != "4.21" {
			t.Fatalf("hops %+v, want 4.20 → 4.21 → 4.22", p.Hops)
		}
		for i, h := range p.Hops {
			if h.EUS == nil || h.EUS.Step != i+1 || h.EUS.Intermediate != "4.21" || h.EUS.From != "4.20" || h.EUS.To != "4.22" {
				t.Errorf("hop %d: eus %+v, want step %d of 4.20 → 4.22 through 4.21", i+1, h.EUS, i+1)
			}
		}
		if !p.Release.Hops[0].Conditional {
			t.Errorf("the release path's first hop is not the conditional 4.20.0 → 4.21.0: %+v", p.Release.Hops)
		}
		one, two := p.Hops[0], p.Hops[1]
		if o := operatorAt(t, one, "early-op"); o.State != clusterplan.StateUpdateRequired || o.Update.To.Name != "early-op.v1.1.0" {
			t.Errorf("early-op (4.20) at 4.20 → 4.21: %s %+v, want an update to 1.1.0, the first on the path (1.2.0 is not needed)", o.State, o.Update)
		}
		if o := operatorAt(t, two, "early-op"); o.State != clusterplan.StateCompatible || o.Installed.Name != "early-op.v1.1.0" || o.Next.InChannel || o.Next.State != clusterplan.NextReachesHead {
			t.Errorf("early-op at 4.21 → 4.22: %+v, want 1.1.0 installed, compatible, absent from v4.22 but with an edge", o)
		}
		if o := operatorAt(t, one, "eus-op"); o.State != clusterplan.StateCompatible {
			t.Errorf("eus-op (4.21) at 4.20 → 4.21: %s, want compatible", o.State)
		}
		if o := operatorAt(t, two, "eus-op"); o.State != clusterplan.StateUpdateRequired || o.Update.To.Name != "eus-op.v1.1.0" || o.Update.To.MaxOpenShiftVersion != "4.22" {
			t.Errorf("eus-op at 4.21 → 4.22 (the intermediate minor is a hop): %s %+v, want an update to 1.1.0 from v4.21", o.State, o.Update)
		}
		if o := operatorAt(t, one, "renamed-op"); len(o.Deprecations) != 1 || o.Deprecations[0].Schema != "olm.channel" || o.Deprecations[0].Name != "stable-1" {
			t.Errorf("renamed-op deprecations ahead in v4.21: %+v, want channel stable-1's", o.Deprecations)
		}
		if o := operatorAt(t, two, "renamed-op"); o.Next.State != clusterplan.NextChannelGone || o.Next.DefaultChannel != "stable-2" {
			t.Errorf("renamed-op in v4.22: %+v, want channel stable-1 gone", o.Next)
		}
		if o := operatorAt(t, one, "skipper-op"); o.Next.State != clusterplan.NextStranded || o.Next.Route.Reason == nil || o.Next.Route.Reason.Code != upgrade.ReasonStranded {
			t.Errorf("skipper-op in v4.21: %+v, want stranded after a skip (OLM v0 drops 1.1.0)", o.Next)
		}
		if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.HasPrefix(n, "EUS-to-EUS 4.20 → 4.22") }) {
			t.Errorf("no EUS note: %q", p.Notes)
		}
	})

	t.Run("z-stream only", func(t *testing.T) {
		ops := filepath.Join(t.TempDir(), "ops.yaml")
		if err := os.WriteFile(ops, []byte("- {package: bridge-op, version: 1.2.0}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p, out, code := runPlanJSON(t, tree, []string{"--channel", "candidate-5.0", "--from", "5.0.0", "--to", "5.0.1",
			"--operators", ops, "--catalogs", planCatalogsFlag(false, "5.0")})
		if code != 0 || p.Blocked || len(p.Hops) != 0 || len(p.Operators) != 1 ||
			!slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "crosses no minor") }) {
			t.Errorf("exit %d: want 0, no hop, the operator resolved and a note:\n%s", code, out)
		}
	})

	t.Run("without --via-eus", func(t *testing.T) {
		args := slices.DeleteFunc(slices.Clone(planCases[1].args), func(a string) bool { return a == "--via-eus" })
		p, _, code := runPlanJSON(t, tree, args)
		if code != 0 || len(p.Hops) != 2 || p.Hops[0].EUS != nil || p.Hops[1].EUS != nil {
			t.Errorf("exit %d, hops %+v: want the same two hops, not marked EUS", code, p.Hops)
		}
	})
}

// TestPlanTreeCatalogs: catalogs of the tree at --source give the same
// plans as the directories they were generated from.
func TestPlanTreeCatalogs(t *testing.T) {
	tree := planTree(t)
	for _, tc := range planCases[:4] { // through: v5.0 lacks the packages
		args := slices.Clone(tc.args)
		i := slices.Index(args, "--catalogs")
		minors := strings.Split(args[i+1], ",")
		for j, m := range minors {
			minors[j] = strings.TrimPrefix(strings.SplitN(m, "=", 2)[0], "v")
		}
		args[i+1] = planCatalogsFlag(true, minors...)
		a, outDir, codeDir := runPlanJSON(t, tree, tc.args)
		b, outTree, codeTree := runPlanJSON(t, tree, args)
		if codeDir != codeTree {
			t.Errorf("%s: exit %d from directories, %d from the tree", tc.name, codeDir, codeTree)
		}
		for k := range b.Catalogs {
			if want := treeCatalogName(b.Catalogs[k].Minor); b.Catalogs[k].Source != want {
				t.Errorf("%s: catalog source %q, want %q", tc.name, b.Catalogs[k].Source, want)
			}
			b.Catalogs[k].Source = a.Catalogs[k].Source
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: the tree's catalogs plan differently:\n%s\n%s", tc.name, outDir, outTree)
		}
	}
}

// TestPlanErrors: trouble exits 2 and says where it is.
func TestPlanErrors(t *testing.T) {
	tree := planTree(t)
	dir := t.TempDir()
	writeOps := func(name, yaml string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	eus := []string{"--channel", "eus-4.22", "--via-eus", "--from", "4.20.0", "--to", "4.22.0"}
	major := []string{"--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1"}
	majorCats := planCatalogsFlag(false, "4.22", "5.0")
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"intermediate minor without catalog", append(slices.Clone(eus), "--operators", "testdata/plan/operators-eus.yaml",
			"--catalogs", planCatalogsFlag(false, "4.20", "4.22")), "--catalogs: no catalog for v4.21: the path goes through 4.20 → 4.21 → 4.22"},
		{"end minor without catalog", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml",
			"--catalogs", planCatalogsFlag(false, "4.22")), "--catalogs: no catalog for v5.0"},
		{"unknown package", append(slices.Clone(major), "--operators", writeOps("a.yaml", "- {package: nope, version: 1.0.0}\n"),
			"--catalogs", majorCats), `the v4.22 catalog (dir:testdata/plan/catalogs/v4.22) has no package "nope"`},
		{"unknown version", append(slices.Clone(major), "--operators", writeOps("b.yaml", "- {package: bridge-op, version: 9.0.0}\n"),
			"--catalogs", majorCats), "no bundle named or versioned"},
		{"catalog key", append(slices.Clone(major), "--operators", writeOps("c.yaml", "- {catalog: redhat, package: bridge-op, version: 1.0.0}\n"),
			"--catalogs", majorCats), "plan reads one catalog per minor"},
		{"unknown key", append(slices.Clone(major), "--operators", writeOps("d.yaml", "- {package: bridge-op, version: 1.0.0, namespace: x}\n"),
			"--catalogs", majorCats), "--operators"},
		{"duplicate minor", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml",
			"--catalogs", majorCats+",v4.22=dir:x"), "--catalogs: v4.22 given twice"},
		{"minor without v", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml",
			"--catalogs", majorCats+",4.23="), `--catalogs "4.23=": write the minor as v4.23 (vX.Y=SOURCE)`},
		{"minor without v, a source", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml",
			"--catalogs", "4.22=dir:x"), `--catalogs "4.22=dir:x": write the minor as v4.22`},
		{"unknown key listed without target", append(slices.Clone(major), "--operators", writeOps("e.yaml", "- {package: bridge-op, version: 1.0.0, namespace: x}\n"),
			"--catalogs", majorCats), `line 1: unknown key "namespace" (the keys are package, channel, version)`},
		{"duplicate operator", append(slices.Clone(major), "--operators", writeOps("f.yaml", "- {package: bridge-op, version: 1.0.0}\n- {version: 1.0.0, package: bridge-op}\n"),
			"--catalogs", majorCats), "entry 2 (line 2): the same install as line 1"},
		{"bad key", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml",
			"--catalogs", majorCats+",v4=dir:x"), `"v4" is not a major.minor version`},
		{"tree catalog missing", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml",
			"--catalogs", "v4.22=nope,v5.0="+treeCatalogName("5.0")), "--catalogs nope"},
		{"release not in the graph", []string{"--channel", "candidate-5.0", "--from", "4.21.0", "--to", "5.0.1",
			"--operators", "testdata/plan/operators-eus.yaml", "--catalogs", planCatalogsFlag(false, "4.21", "5.0")}, "has no release 4.21.0"},
		{"olm", append(slices.Clone(major), "--olm", "v2", "--operators", "testdata/plan/operators-major.yaml", "--catalogs", majorCats), "--olm"},
		{"no operators", append(slices.Clone(major), "--catalogs", majorCats), "--operators is required"},
		{"no catalogs", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml"), "--catalogs is required"},
		{"argument", append(slices.Clone(major), "--operators", "testdata/plan/operators-major.yaml", "--catalogs", majorCats, "extra"), "no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCommand(planCommand(), append([]string{"--source", tree}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.err) {
				t.Errorf("exit %d, stderr %q; want 2 and %q (stdout %q)", code, errOut, tc.err, out)
			}
			if out != "" {
				t.Errorf("printed a plan on trouble:\n%s", out)
			}
		})
	}
}

// compilePlanSchema compiles schema/cli/plan.schema.json, on its own: it
// refers to no other file.
func compilePlanSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(planSchema)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	const id = "https://upgraph.dev/schema/cli/plan.schema.json"
	if err := c.AddResource(id, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validatePlan(t *testing.T, s *jsonschema.Schema, data []byte) {
	t.Helper()
	if err := s.Validate(decodePlan(t, data)); err != nil {
		t.Errorf("the plan is not valid against %s: %#v", planSchema, err)
	}
}

// decodePlan decodes JSON as the validator wants it (numbers as
// json.Number).
func decodePlan(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestPlanSchema: the JSON goldens are valid against the schema, and the
// schema is not vacuous: it rejects plans broken in ways the code could
// break them.
func TestPlanSchema(t *testing.T) {
	s := compilePlanSchema(t)
	goldens, err := filepath.Glob(filepath.Join(planGolden, "*.json"))
	if err != nil || len(goldens) < len(planCases) {
		t.Fatalf("%d JSON goldens (%v), want %d", len(goldens), err, len(planCases))
	}
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		validatePlan(t, s, data)
	}
	data, err := os.ReadFile(filepath.Join(planGolden, "major.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(map[string]any){
		"unknown member":  func(p map[string]any) { p["extra"] = true },
		"unknown state":   func(p map[string]any) { operatorJSON(p, 0, 0)["state"] = "fine" },
		"update not said": func(p map[string]any) { delete(operatorJSON(p, 0, 0), "update") },
		"bad max": func(p map[string]any) {
			operatorJSON(p, 0, 0)["installed"].(map[string]any)["maxOpenShiftVersion"] = "4.22.1"
		},
		"route when gone": func(p map[string]any) { operatorJSON(p, 0, 4)["next"].(map[string]any)["route"] = map[string]any{} },
		"no olmChecks":    func(p map[string]any) { delete(p["hops"].([]any)[0].(map[string]any), "olmChecks") },
		"bad eus step": func(p map[string]any) {
			p["hops"].([]any)[0].(map[string]any)["eus"] = map[string]any{"from": "4.20", "intermediate": "4.21", "to": "4.22", "step": 3}
		},
		"blocker, no info": func(p map[string]any) { delete(p["blockers"].([]any)[0].(map[string]any), "installed") },
	} {
		var p map[string]any
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		breakIt(p)
		broken, _ := json.Marshal(p)
		if err := s.Validate(decodePlan(t, broken)); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}
}

// operatorJSON is hops[h].operators[o] of a decoded plan.
func operatorJSON(p map[string]any, h, o int) map[string]any {
	return p["hops"].([]any)[h].(map[string]any)["operators"].([]any)[o].(map[string]any)
}
