package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSet writes a catalog set file.
func writeSet(t *testing.T, dir, content string) string {
	t.Helper()
	f := filepath.Join(dir, "set.yaml")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPathCatalogSet: path over a catalog set (--catalog-set, --catalog
// naming the installed operator's catalog): OLM v1 across the catalogs
// by priority, a tie refused, OLM v0 in its own catalog with its
// dependencies over the whole set (issue 25); the runtimes' refusals
// (issue 24) and OLM v0's unsatisfiable dependencies with exit status 1
// and the reason.
func TestPathCatalogSet(t *testing.T) {
	tmp := t.TempDir()
	refused := filepath.Join(operatorFixtures, "refused")
	// The same package without the dependency, in a directory whose name
	// has a comma and '=' (a source is taken whole).
	clean := filepath.Join(tmp, "clean,v=2")
	if err := os.MkdirAll(clean, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(refused, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	noDep := strings.Replace(string(data), "- type: olm.package.required\n  value: {packageName: cert-manager, versionRange: '>=1.0.0'}\n", "", 1)
	if err := os.WriteFile(filepath.Join(clean, "catalog.yaml"), []byte(noDep), 0o644); err != nil {
		t.Fatal(err)
	}
	set := func(name, body string) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return writeSet(t, d, body)
	}
	prio := set("prio", "catalogs:\n- name: a\n  source: dir:"+refused+"\n- name: b\n  source: dir:"+clean+"\n  priority: 5\n")
	certs := set("certs", "catalogs:\n- name: a\n  source: dir:"+refused+"\n- name: certs\n  source: dir:"+filepath.Join(operatorFixtures, "certs")+"\n  priority: -5\n")
	tie := set("tie", "catalogs:\n- name: a\n  source: dir:"+refused+"\n- name: b\n  source: dir:"+clean+"\n")
	shared := set("shared", "catalogs:\n- name: community\n  source: dir:../../../shared/catalogs/community-operators-prod-v4.21/configs\n")
	tree := operatorTree(t)
	treeSet := set("tree", "catalogs:\n- name: div\n  source: div\n  priority: 1\n- name: other\n  source: dir:"+refused+"\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string
		err  string
	}{
		{"v1: the higher-priority catalog's bundle, no refusal", []string{"--catalog-set", prio, "--catalog", "a", "--package", "needy", "--from", "1.0.0", "--to", "1.1.0", "--olm", "v1"}, 0,
			[]string{"installed from catalog a, resolved across the catalog set", "needy.v1.0.0 (1.0.0) → needy.v1.1.0 (1.1.0)  via replaces  from catalog b"}, ""},
		{"v1: a tie between catalogs of one priority", []string{"--catalog-set", tie, "--catalog", "a", "--package", "needy", "--from", "1.0.0", "--olm", "v1"}, 1,
			[]string{": catalog-tie.", "same priority [a b])"}, ""},
		{"v1: one catalog refuses the bundle that declares a dependency", []string{"--catalog", refused, "--package", "needy", "--from", "1.0.0", "--olm", "v1"}, 1,
			[]string{": refused-by-v1.", "OLM v1 cannot update needy.v1.1.0: needy.v2.0.0 declares olm.package.required"}, ""},
		{"v0: a dependency no catalog of the set provides holds the install", []string{"--catalog-set", prio, "--catalog", "a", "--package", "needy", "--from", "1.0.0"}, 1,
			[]string{": unsatisfied-dependency.", "OLM v0 stays at needy.v1.1.0: bundle needy.v2.0.0 requires an operator with package:",
				"OLM v0 takes 1 hop before it stops at needy.v1.1.0 (1.1.0)"}, ""},
		{"v0: the dependency's provider comes from another catalog, its default channel first", []string{"--catalog-set", certs, "--catalog", "a", "--package", "needy", "--from", "1.0.0"}, 0,
			[]string{"OLM v0: needy.v1.0.0 (1.0.0) → needy.v2.0.0 (2.0.0), the head of stable (package needy, channel stable, installed from catalog a, dependencies resolved across the catalog set): 2 hops",
				"needs an operator with package: cert-manager and with version in range: >=1.0.0: cert-manager.v1.1.0 (1.1.0), from catalog certs, channel stable",
				"installs cert-manager.v1.1.0 (1.1.0) from catalog certs, channel stable, for needy.v2.0.0"}, ""},
		{"issue 25: rabbitmq-messaging-topology-operator reaches its head under OLM v0, installing rabbitmq-cluster-operator", []string{"--catalog-set", shared, "--package", "rabbitmq-messaging-topology-operator", "--from", "1.12.1"}, 0,
			[]string{"rabbitmq-messaging-topology-operator.v1.14.2 (1.14.2) → rabbitmq-messaging-topology-operator.v1.15.0 (1.15.0)  via replaces",
				"needs an operator with package: rabbitmq-cluster-operator and with version in range: >2.0.0: rabbitmq-cluster-operator.v2.22.3 (2.22.3), from catalog community, channel stable",
				"installs rabbitmq-cluster-operator.v2.22.3 (2.22.3) from catalog community, channel stable, for rabbitmq-messaging-topology-operator.v1.15.0",
				"needs an operator providing an API with group: rabbitmq.com, version: v1beta1, kind: RabbitmqCluster: rabbitmq-cluster-operator.v2.22.3 (2.22.3), installed"}, ""},
		{"v0: a Prohibited bundle strands the install", []string{"--catalog", filepath.Join(operatorFixtures, "prohibited"), "--package", "legacy", "--from", "1.0.0"}, 1,
			[]string{": prohibited.", "OLM v0 cannot update legacy.v1.0.0: its next bundle legacy.v2.0.0 has the legacy olm.deprecated"}, ""},
		{"issue 24: rabbitmq-messaging-topology-operator stops at 1.14.2 under OLM v1", []string{"--catalog-set", shared, "--package", "rabbitmq-messaging-topology-operator", "--from", "1.12.1", "--olm", "v1"}, 1,
			[]string{": refused-by-v1.", "OLM v1 takes 4 hops before it stops at rabbitmq-messaging-topology-operator.v1.14.2 (1.14.2)"}, ""},
		{"a catalog of the tree in the set", []string{"--source", tree, "--catalog-set", treeSet, "--package", "div", "--from", "1.0.0", "--olm", "v1"}, 0,
			[]string{"installed from catalog div", "2 hops", "from catalog div"}, ""},
		{"the package in two catalogs needs --catalog", []string{"--catalog-set", prio, "--package", "needy", "--from", "1.0.0"}, 2, nil,
			`package "needy" is in catalogs a, b of --catalog-set ` + prio + `: name the one its Subscription uses (spec.source) with --catalog NAME`},
		{"--catalog not in the set", []string{"--catalog-set", prio, "--catalog", "c", "--package", "needy", "--from", "1.0.0"}, 2, nil, "--catalog c: not a catalog of --catalog-set"},
		{"no catalog has the package", []string{"--catalog-set", prio, "--package", "nope", "--from", "1.0.0"}, 2, nil, `no catalog of --catalog-set ` + prio + ` has package "nope" (it has a, b)`},
		{"a bad set file", []string{"--catalog-set", set("bad", "catalogs:\n- name: a\n"), "--package", "needy", "--from", "1.0.0"}, 2, nil, "line 2: catalog 1 (a): no source"},
		{"a missing set file", []string{"--catalog-set", filepath.Join(tmp, "nope.yaml"), "--package", "needy", "--from", "1.0.0"}, 2, nil, "--catalog-set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCommand(pathCommand(), tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, want := range tc.out {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, errOut)
			}
		})
	}
}

// TestGenerateCatalogSet: generate --catalog-set publishes each catalog
// with its priority (catalog.json, index.json), and the next/ files of a
// package two catalogs have answer OLM v1 across them, naming the
// winner; a refused pick is given as a refusal.
func TestGenerateCatalogSet(t *testing.T) {
	tmp := t.TempDir()
	refused := filepath.Join(operatorFixtures, "refused")
	divergence := filepath.Join(operatorFixtures, "divergence")
	f := writeSet(t, tmp, "catalogs:\n- name: hi\n  source: dir:"+refused+"\n  priority: 10\n- name: lo\n  source: dir:"+divergence+"\n  priority: -1\n- name: also\n  source: dir:"+refused+"\n")
	out := filepath.Join(tmp, "tree")
	// Package needy is in hi and in also (priority 0); catalog alone,
	// given by --catalog, is not in the set.
	if stdout, stderr, code := runCommand(generateCommand(), "--catalog-set", f, "--catalog", "alone=dir:"+refused, "--out", out); code != 0 {
		t.Fatalf("generate: %d\n%s\n%s", code, stdout, stderr)
	}
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(out, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if s := read("operators/hi/catalog.json"); !strings.Contains(s, `"priority":10`) {
		t.Errorf("hi/catalog.json lacks its priority: %.200s", s)
	}
	if s := read("operators/also/catalog.json"); !strings.Contains(s, `"priority":0`) {
		t.Errorf("also/catalog.json lacks its priority: %.200s", s)
	}
	if s := read("index.json"); !strings.Contains(s, `"priority": 10`) && !strings.Contains(s, `"priority":10`) || !strings.Contains(s, `"priority": -1`) && !strings.Contains(s, `"priority":-1`) {
		t.Errorf("index.json lacks the priorities")
	}
	// From 1.1.0 of catalog also, OLM v1 resolves needy.v2.0.0 in hi
	// (priority 10) and refuses it.
	next := read("operators/also/next/needy/stable/needy.v1.1.0.json")
	for _, want := range []string{`"olmV1Catalog":"hi"`, `"refusal":{"bundle":"needy.v2.0.0","property":"olm.package.required"`, `"pick":null`,
		`"olmV1PerCatalog":[{"catalog":"also","priority":0,"found":true`, `{"catalog":"lo","priority":-1,"found":false,"candidates":0}`} {
		if !strings.Contains(next, want) {
			t.Errorf("next file lacks %s:\n%s", want, next)
		}
	}
	// A package one catalog of the set has, and a catalog outside the
	// set, keep the one-catalog answer.
	if s := read("operators/lo/next/div/stable/div.v1.0.0.json"); strings.Contains(s, "olmV1Catalog") {
		t.Errorf("div is in one catalog only: %s", s)
	}
	if s := read("operators/alone/next/needy/stable/needy.v1.1.0.json"); strings.Contains(s, "olmV1Catalog") || !strings.Contains(s, `"refusal":{"bundle":"needy.v2.0.0"`) {
		t.Errorf("a catalog outside the set: %s", s)
	}
	// A set with per-minor sources is plan's, not generate's.
	g := writeSet(t, t.TempDir(), "catalogs:\n- name: m\n  minors: {v4.21: dir:"+refused+"}\n")
	if _, stderr, code := runCommand(generateCommand(), "--catalog-set", g, "--out", filepath.Join(tmp, "t2")); code == 0 || !strings.Contains(stderr, "generate needs one source, not minors") {
		t.Errorf("minors: %d %s", code, stderr)
	}
}

// TestMirrorSetCatalogSet: mirror-set over a catalog set: OLM v1's
// refusal and a hop another catalog resolves exit 1 with the reason; an
// install without a catalog needs one when several catalogs have its
// package.
func TestMirrorSetCatalogSet(t *testing.T) {
	tmp := t.TempDir()
	refused := filepath.Join(operatorFixtures, "refused")
	clean := filepath.Join(tmp, "clean")
	if err := os.MkdirAll(clean, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(refused, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	noDep := strings.Replace(string(data), "- type: olm.package.required\n  value: {packageName: cert-manager, versionRange: '>=1.0.0'}\n", "", 1)
	if err := os.WriteFile(filepath.Join(clean, "catalog.yaml"), []byte(noDep), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		f := filepath.Join(tmp, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	fromA := write("a.yaml", "- {catalog: a, package: needy, version: 1.0.0}\n")
	bare := write("bare.yaml", "- {package: needy, version: 1.0.0}\n")
	bHigh := write("bhigh.yaml", "catalogs:\n- name: a\n  source: dir:"+refused+"\n- name: b\n  source: dir:"+clean+"\n  priority: 5\n")
	aHigh := write("ahigh.yaml", "catalogs:\n- name: a\n  source: dir:"+refused+"\n  priority: 5\n- name: b\n  source: dir:"+clean+"\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
		err  string
	}{
		{"v1: a refusal in one catalog", []string{"--catalog", refused, "--installed", bare, "--olm", "v1"}, 1,
			"no OLM v1 path: refused-by-v1.\n    OLM v1 cannot update needy.v1.1.0: needy.v2.0.0 declares olm.package.required", ""},
		{"v1: the refusal of the higher-priority catalog", []string{"--catalog-set", aHigh, "--installed", fromA, "--olm", "v1"}, 1,
			"no OLM v1 path: refused-by-v1.", ""},
		{"v1: a hop from another catalog", []string{"--catalog-set", bHigh, "--installed", fromA, "--olm", "v1"}, 1,
			"no OLM v1 path: other-catalog.\n    OLM v1 resolves needy.v1.1.0 from catalog b (priority 5), not from a", ""},
		// OLM v0 resolves the dependency needy.v2.0.0 declares
		// (cert-manager) over the set: no catalog has it, so OLM v0
		// stays at needy.v1.1.0 (issue 25).
		{"v0: a dependency no catalog provides", []string{"--catalog-set", bHigh, "--installed", fromA}, 1,
			"no OLM v0 path: dependencies.\n    with dependencies (olm.gvk.required, olm.package.required, olm.label.required, olm.constraint), OLM v0 does not take needy.v1.0.0 → needy.v1.1.0 → needy.v2.0.0 in the catalog set: OLM v0 stays at needy.v1.1.0: bundle needy.v2.0.0 requires an operator with package: cert-manager", ""},
		{"an install without a catalog, two catalogs with its package", []string{"--catalog-set", bHigh, "--installed", bare}, 2, "",
			"catalogs a, b have package needy: name the one its Subscription uses"},
		{"--catalog and --catalog-set", []string{"--catalog-set", bHigh, "--catalog", refused, "--installed", bare}, 2, "", "give one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCommand(mirrorSetCommand(), append(tc.args, "--out", filepath.Join(t.TempDir(), "out"))...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s\nwant %q / %q", code, tc.code, out, errOut, tc.out, tc.err)
			}
		})
	}
}

// TestPlanCatalogSetErrors: a catalog set without a source at a minor of
// the path, and --catalogs with --catalog-set.
func TestPlanCatalogSetErrors(t *testing.T) {
	tree := planTree(t)
	f := writeSet(t, t.TempDir(), "catalogs:\n- name: ocp\n  minors: {v4.22: dir:testdata/plan/catalogs/v4.22}\n")
	base := []string{"--source", tree, "--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1", "--operators", "testdata/plan/operators-major.yaml"}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--catalog-set", f}, "--catalog-set " + f + ": no catalog for v5.0: the path goes through 4.22 → 5.0"},
		{[]string{"--catalog-set", f, "--catalogs", planCatalogsFlag(false, "4.22", "5.0")}, "--catalogs and --catalog-set: give one"},
	} {
		out, errOut, code := runCommand(planCommand(), append(base, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit %d\n%s\n%s\nwant %q", tc.args, code, out, errOut, tc.err)
		}
	}
}

// TestCatalogSetReadFirstError: the catalogs of a set are read together,
// and the error reported is that of the first catalog, in the set's
// order (minor by minor for plan), that cannot be read, every time.
func TestCatalogSetReadFirstError(t *testing.T) {
	tree := planTree(t)
	dir := t.TempDir()
	for _, name := range []string{"broken-a", "broken-b"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "catalog.yaml"), []byte("schema: olm.package\nname: [x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good, err := filepath.Abs("testdata/plan/catalogs/v4.22")
	if err != nil {
		t.Fatal(err)
	}
	set := writeSet(t, dir, "catalogs:\n- name: ocp\n  source: dir:"+good+"\n- name: a\n  source: dir:"+filepath.Join(dir, "broken-a")+
		"\n- name: b\n  source: dir:"+filepath.Join(dir, "broken-b")+"\n")
	for _, tc := range []struct {
		cmd  string
		args []string
		err  string
	}{
		{"plan", []string{"--source", tree, "--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1",
			"--operators", "testdata/plan/operators-major.yaml", "--catalog-set", set}, "catalog a: catalog dir:" + filepath.Join(dir, "broken-a") + ": catalog.yaml:2: invalid YAML"},
		{"mirror-set", []string{"--installed", "testdata/plan/operators-major.yaml", "--catalog-set", set,
			"--out", filepath.Join(dir, "out")}, "catalog a: catalog dir:" + filepath.Join(dir, "broken-a") + ": catalog.yaml:2: invalid YAML"},
	} {
		cmd := planCommand()
		if tc.cmd == "mirror-set" {
			cmd = mirrorSetCommand()
		}
		for range 5 {
			out, errOut, code := runCommand(cmd, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.err) || strings.Contains(errOut, "broken-b") {
				t.Fatalf("%s: exit %d\n%s\n%s\nwant %q", tc.cmd, code, out, errOut, tc.err)
			}
		}
	}
}
