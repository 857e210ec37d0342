package rollout

import (
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

// Plan is a generation's rollouts: N buckets at time At.
type Plan struct {
	Rollouts []Rollout
	Buckets  int
	At       int64
}

// Hidden lists the rollouts (indices into p.Rollouts) whose release bucket
// k is not offered in channel at p.At: the releases whose incoming edges
// its graphs lose.
func (p *Plan) Hidden(k int, channel string) []int {
	var out []int
	for i := range p.Rollouts {
		r := &p.Rollouts[i]
		if r.InChannel(channel) && !r.Offered(k, p.Buckets, p.At) {
			out = append(out, i)
		}
	}
	return out
}

// Key names a set of hidden rollouts, to share the graphs of the buckets
// and channels that hide the same ones.
func Key(hidden []int) string {
	var b strings.Builder
	for _, i := range hidden {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	return b.String()
}

// Targets are the nodes of g a rollout of version throttles: the node of
// that version, and the per-architecture nodes of it (version+<arch>,
// build metadata being how graph-data tells them apart).
func Targets(g *graph.Graph, ver string) []int {
	var out []int
	want, err := version.Parse(ver)
	if err != nil {
		return nil
	}
	for i, n := range g.Nodes() {
		v, ok := n.SemVer()
		if !ok {
			continue
		}
		if n.Version == ver || (want.Build() == "" && v.Key() == want.Key()) {
			out = append(out, i)
		}
	}
	return out
}

// Cut returns a copy of g without the edges into the nodes hidden, and
// without the conditional edges into them: FCOS's throttle_rollouts
// retains only edges whose target is not hidden (edges out of a hidden
// release stay, so a cluster already on it keeps its updates). The
// nodes keep their indices and are shared with g (read-only).
func Cut(g *graph.Graph, hidden []int) *graph.Graph {
	drop := make(map[int]bool, len(hidden))
	dropVersion := make(map[string]bool, len(hidden))
	for _, i := range hidden {
		drop[i] = true
		dropVersion[g.Node(i).Version] = true
	}
	c := graph.New()
	for _, n := range g.Nodes() {
		if _, err := c.AddNode(n); err != nil {
			panic("rollout: copying a graph that has duplicate versions: " + err.Error())
		}
	}
	for _, e := range g.Edges() {
		if !drop[e[1]] {
			c.AddEdge(e[0], e[1])
		}
	}
	c.Declarations = g.Declarations
	for _, ce := range g.Conditional {
		kept := graph.ConditionalEdge{Risks: ce.Risks}
		for _, e := range ce.Edges {
			if !dropVersion[e.To] {
				kept.Edges = append(kept.Edges, e)
			}
		}
		if len(kept.Edges) > 0 {
			c.Conditional = append(c.Conditional, kept)
		}
	}
	return c
}
