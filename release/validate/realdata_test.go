package validate

import (
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/internal/cputime"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/version"
)

// realGraphData is the shared snapshot of openshift/cincinnati-graph-data
// (CI clones this repository with shared/ beside it).
const realGraphData = "../../../shared/graph-data"

func realTree(tb testing.TB) *os.Root {
	tb.Helper()
	root, err := os.OpenRoot(realGraphData)
	if err != nil {
		tb.Skipf("real graph-data not available: %v", err)
	}
	tb.Cleanup(func() { root.Close() })
	return root
}

// TestValidateRealGraphData: graph-data's own CI passes on the snapshot,
// so any error here is a false positive. The warnings are logged by rule.
func TestValidateRealGraphData(t *testing.T) {
	ps := Validate(realTree(t).FS(), Options{})
	for _, p := range ps {
		if p.Severity == Error {
			t.Errorf("%s", p)
		}
	}
	counts := ps.CountByRule()
	rules := make([]string, 0, len(counts))
	for r := range counts {
		rules = append(rules, r)
	}
	slices.SortFunc(rules, func(a, b string) int { return ruleOrder.Rank(a) - ruleOrder.Rank(b) })
	for _, r := range rules {
		t.Logf("%s: %d", r, counts[r])
	}
}

// TestValidateRealGraphDataWithReleases checks the release rules at real
// scale, against the releases synth derives from the channels (every
// channel version for the arches of its minor).
func TestValidateRealGraphDataWithReleases(t *testing.T) {
	fsys := realTree(t).FS()
	ps := Validate(fsys, Options{Releases: synthReleases(t, fsys)})
	for _, p := range ps {
		if p.Severity == Error {
			t.Errorf("%s", p)
		}
	}
	t.Logf("%d warnings", ps.Count(Warning))
}

func synthReleases(tb testing.TB, fsys fs.FS) []version.Version {
	rs, err := synth.FromGraphData(fsys)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]version.Version, 0, len(rs))
	for _, r := range rs {
		out = append(out, version.MustParse(r.Version+"+"+r.Arch))
	}
	return out
}

// TestValidateShapesMatchGraphdata: Y1's classification and the lints see the
// same blocks and risks as the generator's loader.
func TestValidateShapesMatchGraphdata(t *testing.T) {
	fsys := realTree(t).FS()
	gd, err := graphdata.Load(fsys, graphdata.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{fsys: fsys}
	c.run(c.blockedEdgeJobs())
	var blocks, risks []string
	for _, e := range c.parsedEdges() {
		if e.shape == block {
			blocks = append(blocks, e.file)
		} else {
			risks = append(risks, e.file)
		}
	}
	var wantBlocks, wantRisks []string
	for _, b := range gd.Blocks {
		wantBlocks = append(wantBlocks, b.File)
	}
	for _, r := range gd.Risks {
		wantRisks = append(wantRisks, r.File)
	}
	if !slices.Equal(blocks, wantBlocks) || !slices.Equal(risks, wantRisks) {
		t.Errorf("blocks/risks: got %d/%d, graphdata.Load %d/%d", len(blocks), len(risks), len(wantBlocks), len(wantRisks))
	}
}

// BenchmarkValidateRealGraphData reports wall time (ns/op) and, since the
// machines running it are often shared, the process CPU time (cpu-ms/op).
func BenchmarkValidateRealGraphData(b *testing.B) {
	fsys := realTree(b).FS()
	Validate(fsys, Options{}) // compile the schemas before the timing
	cpu0 := cputime.Process()
	for b.Loop() {
		Validate(fsys, Options{})
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

func BenchmarkValidateRealGraphDataWithReleases(b *testing.B) {
	fsys := realTree(b).FS()
	opts := Options{Releases: synthReleases(b, fsys)}
	Validate(fsys, opts)
	cpu0 := cputime.Process()
	for b.Loop() {
		Validate(fsys, opts)
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
