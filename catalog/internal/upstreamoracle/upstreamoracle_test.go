package upstreamoracle

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

const (
	dataDir   = "../../testdata/oracle-upstream"
	sharedDir = "../../../../shared/catalogs/community-operators-prod-v4.21/configs"
)

// Re-recording (README in dataDir): -oracle.inputs DIR writes the split
// catalogs and the harnesses' query files under DIR; after the harnesses
// ran, -oracle.record DIR joins DIR/v1-answers.jsonl and
// DIR/v0-answers.jsonl with the queries into dataDir.
var (
	inputsDir = flag.String("oracle.inputs", "", "write the harness inputs (split catalogs, query files) under this directory")
	recordDir = flag.String("oracle.record", "", "record the harness answers found in this directory into "+dataDir)
)

func generate(t *testing.T, splitDir string) *Generated {
	t.Helper()
	g, err := Generate(context.Background(), sharedDir, splitDir)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

var (
	genOnce   sync.Once
	genDir    string
	gen       *Generated
	genShared *declcfg.DeclarativeConfig
	genSplit  map[string]*declcfg.DeclarativeConfig
	genErr    error
)

// generated is Generate's queries, built once per test binary (the split
// catalogs under a temporary directory TestMain removes).
func generated(t *testing.T) *Generated {
	t.Helper()
	genOnce.Do(func() {
		if genDir, genErr = os.MkdirTemp("", "upstreamoracle-split"); genErr != nil {
			return
		}
		if genShared, genSplit, genErr = SplitShared(context.Background(), sharedDir, genDir); genErr == nil {
			gen = generateFrom(genShared, genSplit)
		}
	})
	if genErr != nil {
		t.Fatal(genErr)
	}
	return gen
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if genDir != "" {
		os.RemoveAll(genDir)
	}
	os.Exit(code)
}

// harnessV1 is a V1Query as the operator-controller harness reads it.
func harnessV1(q V1Query, set CatalogSet, d Dirs) (map[string]any, error) {
	var cats []map[string]any
	for _, c := range set.Catalogs {
		dir, err := d.Dir(c)
		if err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		cats = append(cats, map[string]any{"name": c.Name, "priority": c.Priority, "dir": abs, "labels": c.Labels, "unavailable": c.Unavailable, "notServing": c.NotServing})
	}
	m := map[string]any{"id": q.ID, "catalogs": cats, "package": q.Package, "channels": q.Channels,
		"versionRange": q.VersionRange, "upgradeConstraintPolicy": q.UpgradeConstraintPolicy}
	if q.Installed != nil {
		m["installed"] = q.Installed
	}
	if q.Selector != nil {
		m["selector"] = q.Selector
	}
	return m, nil
}

// harnessV0 is a V0Query as the operator-lifecycle-manager harness reads it.
func harnessV0(q V0Query, set CatalogSet, d Dirs) (map[string]any, error) {
	var cats []map[string]any
	for _, c := range set.Catalogs {
		dir, err := d.Dir(c)
		if err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		cats = append(cats, map[string]any{"name": c.Name, "namespace": set.GlobalNamespace, "priority": c.Priority, "dir": abs})
	}
	return map[string]any{"id": q.ID, "globalNamespace": set.GlobalNamespace, "catalogs": cats, "subscriptions": q.Subscriptions}, nil
}

func writeJSONL(t *testing.T, path string, lines []any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteInputs writes the harness inputs (only with -oracle.inputs).
func TestWriteInputs(t *testing.T) {
	if *inputsDir == "" {
		t.Skip("no -oracle.inputs")
	}
	split := filepath.Join(*inputsDir, "split")
	g := generate(t, split)
	d := Dirs{Data: dataDir, Shared: sharedDir, Split: split}
	sets := map[string]CatalogSet{}
	for _, s := range g.Sets {
		sets[s.Name] = s
	}
	var v1, v0 []any
	for _, q := range g.V1 {
		h, err := harnessV1(q, sets[q.Set], d)
		if err != nil {
			t.Fatal(err)
		}
		v1 = append(v1, h)
	}
	for _, q := range g.V0 {
		h, err := harnessV0(q, sets[q.Set], d)
		if err != nil {
			t.Fatal(err)
		}
		v0 = append(v0, h)
	}
	writeJSONL(t, filepath.Join(*inputsDir, "v1-queries.jsonl"), v1)
	writeJSONL(t, filepath.Join(*inputsDir, "v0-queries.jsonl"), v0)
	t.Logf("%d OLM v1 and %d OLM v0 queries under %s", len(v1), len(v0), *inputsDir)
}

// TestRecord joins the harness answers with the queries (only with
// -oracle.record).
func TestRecord(t *testing.T) {
	if *recordDir == "" {
		t.Skip("no -oracle.record")
	}
	g := generated(t)
	type v1Raw struct {
		ID string `json:"id"`
		V1Answer
	}
	type v0Raw struct {
		ID string `json:"id"`
		V0Answer
	}
	v1a, err := ReadJSONL[v1Raw](filepath.Join(*recordDir, "v1-answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v0a, err := ReadJSONL[v0Raw](filepath.Join(*recordDir, "v0-answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(v1a) != len(g.V1) || len(v0a) != len(g.V0) {
		t.Fatalf("answers: %d v1 for %d queries, %d v0 for %d queries", len(v1a), len(g.V1), len(v0a), len(g.V0))
	}
	var v1, v0 []any
	for i, q := range g.V1 {
		if v1a[i].ID != q.ID {
			t.Fatalf("v1 answer %d is for %q, query is %q", i, v1a[i].ID, q.ID)
		}
		v1 = append(v1, V1Record{V1Query: q, Answer: v1a[i].V1Answer})
	}
	for i, q := range g.V0 {
		if v0a[i].ID != q.ID {
			t.Fatalf("v0 answer %d is for %q, query is %q", i, v0a[i].ID, q.ID)
		}
		v0 = append(v0, V0Record{V0Query: q, Answer: v0a[i].V0Answer})
	}
	writeJSONL(t, filepath.Join(dataDir, V1File), v1)
	writeJSONL(t, filepath.Join(dataDir, V0File), v0)
	sets, err := json.MarshalIndent(g.Sets, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, SetsFile), append(sets, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRecordedComplete: the recorded data parses strictly, answers exactly
// the queries Generate builds today (same sets, same queries, same order:
// a change to the split rule, the shared catalog or the fixtures needs a
// new recording), and every answer is well formed.
func TestRecordedComplete(t *testing.T) {
	rec, err := Load(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Answers(generated(t)); err != nil {
		t.Fatal(err)
	}
	checkV1(t, rec)
	checkV0(t, rec)
}

// TestAnswersDetectsChange: a recording that misses a query, or answers
// another, is refused.
func TestAnswersDetectsChange(t *testing.T) {
	g := generated(t)
	rec := &Recorded{Sets: g.Sets}
	for _, q := range g.V1 {
		rec.V1 = append(rec.V1, V1Record{V1Query: q})
	}
	for _, q := range g.V0 {
		rec.V0 = append(rec.V0, V0Record{V0Query: q})
	}
	if err := rec.Answers(g); err != nil {
		t.Fatalf("the generated queries themselves: %v", err)
	}
	short := *rec
	short.V0 = short.V0[:len(short.V0)-1]
	if err := short.Answers(g); err == nil {
		t.Error("a missing OLM v0 record was not noticed")
	}
	other := *rec
	other.V1 = slices.Clone(rec.V1)
	other.V1[7].Channels = []string{"no-such-channel"}
	if err := other.Answers(g); err == nil {
		t.Error("a changed OLM v1 query was not noticed")
	}
}

func catalogNames(s CatalogSet) []string {
	var out []string
	for _, c := range s.Catalogs {
		out = append(out, c.Name)
	}
	return out
}

func checkV1(t *testing.T, rec *Recorded) {
	ids := map[string]bool{}
	for i, r := range rec.V1 {
		line := i + 1
		if ids[r.ID] {
			t.Errorf("%s:%d: id %q again", V1File, line, r.ID)
		}
		ids[r.ID] = true
		set, ok := rec.Set(r.Set)
		if !ok {
			t.Errorf("%s:%d: no set %q", V1File, line, r.Set)
			continue
		}
		a := r.Answer
		if (a.Bundle == "") == (a.Error == "") {
			t.Errorf("%s:%d: %s: exactly one of bundle and error expected: %+v", V1File, line, r.ID, a)
		}
		if a.Bundle != "" && (a.Version == "" || !slices.Contains(catalogNames(set), a.Catalog)) {
			t.Errorf("%s:%d: %s: a pick needs a version and a catalog of set %s: %+v", V1File, line, r.ID, r.Set, a)
		}
		if bytes.Contains([]byte(a.Error), []byte("HARNESS")) {
			t.Errorf("%s:%d: %s: the harness failed: %s", V1File, line, r.ID, a.Error)
		}
		// The installed metadata is the query's bundle's (or the query's own).
		switch inst := r.Installed; {
		case inst == nil && a.Installed != nil, inst != nil && a.Installed == nil:
			t.Errorf("%s:%d: %s: installed %+v answered with %+v", V1File, line, r.ID, inst, a.Installed)
		case inst != nil && inst.Bundle != "" && a.Installed.Name != inst.Bundle:
			t.Errorf("%s:%d: %s: installed %s answered with %s", V1File, line, r.ID, inst.Bundle, a.Installed.Name)
		}
	}
}

func checkV0(t *testing.T, rec *Recorded) {
	ids := map[string]bool{}
	for i, r := range rec.V0 {
		line := i + 1
		if ids[r.ID] {
			t.Errorf("%s:%d: id %q again", V0File, line, r.ID)
		}
		ids[r.ID] = true
		set, ok := rec.Set(r.Set)
		if !ok {
			t.Errorf("%s:%d: no set %q", V0File, line, r.Set)
			continue
		}
		a := r.Answer
		if a.Runs < 1 || (a.Error != "" && len(a.Operators) > 0) || (a.Error == "" && a.Operators == nil) || a.Unstable != (len(a.Alternatives) > 0) {
			t.Errorf("%s:%d: %s: malformed answer %+v", V0File, line, r.ID, a)
		}
		if bytes.Contains([]byte(a.Error), []byte("HARNESS")) {
			t.Errorf("%s:%d: %s: the harness failed: %s", V0File, line, r.ID, a.Error)
		}
		for _, op := range a.Operators {
			if !slices.Contains(catalogNames(set), op.Catalog) || op.CatalogNamespace != set.GlobalNamespace {
				t.Errorf("%s:%d: %s: operator %s from %s/%s, not a catalog of set %s", V0File, line, r.ID, op.Name, op.CatalogNamespace, op.Catalog, r.Set)
			}
		}
	}
}

// TestSplitModes: the split rule gives every mode to some package of the
// shared catalog, and each catalog of the split loads.
func TestSplitModes(t *testing.T) {
	generated(t)
	shared, split := genShared, genSplit
	var pkgs []string
	for _, p := range shared.Packages {
		pkgs = append(pkgs, p.Name)
	}
	slices.Sort(pkgs)
	seen := map[SplitMode]int{}
	for _, p := range pkgs {
		seen[ModeOf(pkgs, p)]++
	}
	for m := range splitModes {
		if seen[m] == 0 {
			t.Errorf("no package split %s", m)
		}
	}
	for _, c := range SplitSet().Catalogs {
		if len(split[c.Name].Packages) == 0 {
			t.Errorf("split catalog %s is empty", c.Name)
		}
	}
	if n := len(split[SplitB].Deprecations); n == 0 {
		t.Errorf("cat-b has no olm.deprecations")
	}
}
