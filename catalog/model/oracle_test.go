package model

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/internal/olmoracletest"
)

// Conformance with operator-registry itself (issue 17, first acceptance
// check). internal/olmoracle is a module of its own that imports
// operator-registry (the version its go.mod pins) and prints, for an FBC
// directory, upstream's verdicts (declcfg.ConvertToModel, which runs
// model.Validate: what `opm validate` says) for the catalog and for each
// package alone, model.Channel.Head() of every channel, and the typed
// edges `opm alpha render-graph` draws (declcfg.MermaidWriter). This test
// runs it on the shared real catalog and on the fixtures of
// catalog/testdata/oracle (hand-written reproductions of
// operator-registry's own test catalogs; README.md there cites each) and
// requires catalog/declcfg.Load + Convert to agree: the verdict per
// package and for the catalog, the head (or the head error's text) per
// channel, and the edge set per channel. Upstream error messages that no
// upgraph error contains are logged, not failed: upgraph reports every
// problem with its own wording where opm stops at the first.

const (
	oracleFixtures = "../testdata/oracle"
	// oracleModuleDir is internal/olmoracle, whose binary
	// olmoracletest.Bin finds or builds (the test fails without it).
	oracleModuleDir = "../../internal/olmoracle"
)

func TestOracleConformance(t *testing.T) {
	bin := olmoracletest.Bin(t, oracleModuleDir)
	shared, err := filepath.Abs(sharedCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(shared); err != nil {
		t.Fatalf("shared real catalog: %v (CI clones the repository with shared/ beside it)", err)
	}
	names := []string{"shared"}
	dirs := []string{shared}
	for _, name := range oracleFixtureNames(t) {
		names = append(names, name)
		dirs = append(dirs, filepath.Join(oracleFixtures, name))
	}
	out, err := olmoracletest.Run(bin, dirs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("oracle: operator-registry %s", out.OperatorRegistry)
	for i, oc := range out.Catalogs {
		t.Run(names[i], func(t *testing.T) {
			diffs, notes := compareWithOracle(dirs[i], oc)
			for _, n := range notes {
				t.Log(n)
			}
			if len(diffs) > 0 {
				t.Errorf("upgraph disagrees with operator-registry %s on %s:\n  %s", out.OperatorRegistry, dirs[i], strings.Join(diffs, "\n  "))
			}
		})
	}
}

// TestOracleFixturesCited checks that testdata/oracle/README.md cites
// every fixture directory.
func TestOracleFixturesCited(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(oracleFixtures, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range oracleFixtureNames(t) {
		if !bytes.Contains(readme, []byte("`"+name+"`")) {
			t.Errorf("testdata/oracle/README.md does not cite fixture %s", name)
		}
	}
}

func oracleFixtureNames(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(oracleFixtures)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no oracle fixtures")
	}
	return names
}

// compareWithOracle loads dir with upgraph's loader and model and
// compares with the oracle's answer. diffs are disagreements; notes are
// what the test logs (upstream messages no upgraph error contains,
// packages render-graph refuses).
func compareWithOracle(dir string, oc olmoracletest.Catalog) (diffs, notes []string) {
	diff := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }

	cfg, err := declcfg.Load(context.Background(), os.DirFS(dir), ".")
	if oc.LoadError != "" || err != nil {
		if (oc.LoadError != "") != (err != nil) {
			diff("loading: operator-registry: %q; upgraph: %v", oc.LoadError, err)
		}
		return diffs, notes
	}
	c := Convert(cfg)
	errorsOf := func(pkg string, all bool) []string {
		var out []string
		for _, p := range c.Problems {
			if p.Severity == Error && (all || p.Package == pkg) {
				out = append(out, p.Message)
			}
		}
		return out
	}
	if c.Valid() != oc.Verdict.Valid {
		diff("catalog verdict: operator-registry valid=%v %s; upgraph valid=%v%s",
			oc.Verdict.Valid, quoteErr(oc.Verdict.Error), c.Valid(), bulleted(errorsOf("", true)))
	}
	if oc.RenderGraphError != "" {
		note("render-graph refuses the whole catalog: %s (edges compared per package)", oc.RenderGraphError)
	}

	var nch, nedges int
	defer func() {
		note("compared %d packages, %d channels, %d edges", len(oc.Packages), nch, nedges)
	}()
	seen := map[string]bool{}
	for _, op := range oc.Packages {
		seen[op.Name] = true
		pkg := c.Package(op.Name)
		if pkg == nil {
			// Blobs of an undeclared package (or a package upgraph cannot
			// place, e.g. one without a name): upstream rejects them alone,
			// and upgraph must report an error about that package.
			if op.Verdict.Valid {
				diff("package %q: operator-registry accepts it alone; upgraph has no such package", op.Name)
			} else if ups := errorsOf(op.Name, false); len(ups) == 0 {
				diff("package %q: operator-registry rejects it alone %s; upgraph reports no error for it", op.Name, quoteErr(op.Verdict.Error))
			} else {
				noteMessages(note, op.Name, op.Verdict.Messages, ups)
			}
			continue
		}
		ups := errorsOf(op.Name, false)
		if pkg.Valid() != op.Verdict.Valid {
			diff("package %q verdict: operator-registry valid=%v %s; upgraph valid=%v%s",
				op.Name, op.Verdict.Valid, quoteErr(op.Verdict.Error), pkg.Valid(), bulleted(ups))
		} else if !op.Verdict.Valid {
			noteMessages(note, op.Name, op.Verdict.Messages, ups)
		}
		if op.RenderGraphError != "" {
			note("package %q: render-graph refuses it (%s): edges not compared", op.Name, op.RenderGraphError)
		}
		chSeen := map[string]bool{}
		for _, och := range op.Channels {
			if chSeen[och.Name] {
				continue // a duplicate channel blob: upgraph keeps the first
			}
			chSeen[och.Name] = true
			ch := pkg.Channel(och.Name)
			if ch == nil {
				if op.Verdict.Valid {
					diff("package %q channel %q: missing in upgraph", op.Name, och.Name)
				} else {
					note("package %q channel %q: not in upgraph's model (the package is invalid)", op.Name, och.Name)
				}
				continue
			}
			where := fmt.Sprintf("package %q channel %q", op.Name, och.Name)
			g := ch.Graph()
			if g.Head != och.Head || g.HeadError != och.HeadError {
				diff("%s head: operator-registry %s; upgraph %s", where, headText(och.Head, och.HeadError), headText(g.Head, g.HeadError))
			}
			nch++
			if op.RenderGraphError == "" {
				nedges += len(och.Edges)
				diffs = append(diffs, edgeDiff(where, och.Edges, g.AllEdges())...)
			}
		}
		for _, ch := range pkg.Channels {
			if !chSeen[ch.Name] {
				diff("package %q channel %q: upgraph has it, operator-registry does not", op.Name, ch.Name)
			}
		}
	}
	for _, p := range c.Packages {
		if !seen[p.Name] {
			diff("package %q: upgraph has it, operator-registry does not", p.Name)
		}
	}
	return diffs, notes
}

// noteMessages notes the upstream messages that no upgraph error of the
// package contains.
func noteMessages(note func(string, ...any), pkg string, upstream, upgraph []string) {
	for _, m := range upstream {
		if !slices.ContainsFunc(upgraph, func(u string) bool { return strings.Contains(u, m) }) {
			note("package %q: no upgraph error contains operator-registry's %q; upgraph says:%s", pkg, m, bulleted(upgraph))
		}
	}
}

func edgeKey(e GraphEdge) string {
	s := fmt.Sprintf("%s -> %s (%s)", e.From, e.To, e.Type)
	if e.Range != "" {
		s = fmt.Sprintf("%s -> %s (%s %s)", e.From, e.To, e.Type, e.Range)
	}
	return s
}

// edgeDiff compares edge sets: lines "- " for upstream's edges upgraph
// lacks, "+ " for upgraph's extra ones.
func edgeDiff(where string, upstream []olmoracletest.Edge, upgraph []GraphEdge) []string {
	want, got := map[string]bool{}, map[string]bool{}
	for _, e := range upstream {
		want[edgeKey(GraphEdge{From: e.From, To: e.To, Type: EdgeType(e.Type), Range: e.Range})] = true
	}
	for _, e := range upgraph {
		got[edgeKey(e)] = true
	}
	var lines []string
	for k := range want {
		if !got[k] {
			lines = append(lines, "- "+k)
		}
	}
	for k := range got {
		if !want[k] {
			lines = append(lines, "+ "+k)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	slices.SortFunc(lines, func(a, b string) int { return cmp.Or(cmp.Compare(a[2:], b[2:]), cmp.Compare(a, b)) })
	return []string{fmt.Sprintf("%s edges (- operator-registry only, + upgraph only):\n      %s", where, strings.Join(lines, "\n      "))}
}

func headText(head, err string) string {
	if err != "" {
		return fmt.Sprintf("error %q", err)
	}
	return fmt.Sprintf("%q", head)
}

func quoteErr(s string) string {
	if s == "" {
		return ""
	}
	return "(" + strings.ReplaceAll(s, "\n", "\n      ") + ")"
}

func bulleted(msgs []string) string {
	if len(msgs) == 0 {
		return " (no errors)"
	}
	return "\n      * " + strings.Join(msgs, "\n      * ")
}
