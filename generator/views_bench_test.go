package generator_test

import (
	"testing"

	"github.com/upgraph/upgraph/internal/cputime"

	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/release/views"
)

// BenchmarkRenderViews renders every channel graph and per-version graph
// of the real-scale graph on one goroutine, without hashing or writing
// them: the rendering's share of a full generation (release/views),
// each file into one reused buffer. Views are computed once, before the
// timer.
func BenchmarkRenderViews(b *testing.B) {
	built := buildReal(b)
	ix := policy.NewIndex(built.Graph)
	type job struct {
		v *policy.ChannelView
		l *views.Layout
	}
	var jobs []job
	for _, c := range built.Channels {
		for _, a := range built.Graph.Arches() {
			v := ix.View(c, a)
			if len(v.Nodes) > 0 {
				jobs = append(jobs, job{v, views.NewLayout(v)})
			}
		}
	}
	var buf []byte
	total := 0
	cpu := cputime.Process()
	for b.Loop() {
		r := views.NewRenderer(built.Graph)
		total = 0
		for _, j := range jobs {
			buf = r.Channel(buf[:0], j.v)
			total += len(buf)
			for p := range j.v.Nodes {
				buf = r.Version(buf[:0], j.l, p)
				total += len(buf)
			}
		}
	}
	b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.SetBytes(int64(total))
}
