package edges

import (
	"context"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/release/graph"
)

// resolveConditional turns risk declarations into conditional-edge groups
// (spec §4.5): every existing edge into a declaration's target from a
// matching source collects the risk; edges with the same ordered risk list
// form one group. Declarations that match nothing disappear.
//
// matchers (one per worker) memoise regex results; the graph's versions
// must not change while they are in use.
func resolveConditional(g *graph.Graph, matchers []*matcher) []graph.ConditionalEdge {
	byPrefix := map[string][]int{}
	for i, n := range g.Nodes() {
		if k := strings.IndexByte(n.Version, '+'); k >= 0 {
			byPrefix[n.Version[:k]] = append(byPrefix[n.Version[:k]], i)
		}
	}
	// Every (edge, risk) match is collected in a flat list, in declaration
	// order, then sorted by edge: a map of per-edge lists cost three map
	// operations per match, hundreds of thousands of them at real scale.
	riskIDs := map[string]int{}
	var risks []graph.Risk
	ids := make([]int, len(g.Declarations))
	for k, d := range g.Declarations {
		ids[k] = internRisk(riskIDs, &risks, d.Risk)
	}
	// Declarations are matched on every core, those with the same pattern
	// by the same worker, each worker with its own memo of regex results;
	// the graph is only read meanwhile.
	order := g.SortedOrder()
	rank := make([]int32, len(order))
	for r, i := range order {
		rank[i] = int32(r)
	}
	found := make([][]match, len(g.Declarations))
	byPattern := samePattern(len(g.Declarations), func(k int) string { return g.Declarations[k].From.String() })
	_ = parallel.Run(context.Background(), len(matchers), len(byPattern), func(_ context.Context, w, j int) error {
		for _, k := range byPattern[j] {
			d, m := g.Declarations[k], matchers[w]
			targets := byPrefix[d.To]
			if i, ok := g.Lookup(d.To); ok {
				targets = append([]int{i}, targets...)
			}
			re := m.memo(d.From)
			matchAll := d.From.String() == ".*"
			results := m.resultsOf(re)
			for _, x := range targets {
				for _, y := range g.Parents(x) {
					if matchAll || m.matchWith(results, re, y) {
						found[k] = append(found[k], match{rank[y], rank[x], int32(ids[k])})
					}
				}
			}
		}
		return nil
	})
	total := 0
	for _, f := range found {
		total += len(f)
	}
	matches := make([]match, 0, total)
	for _, f := range found {
		matches = append(matches, f...)
	}
	// Sorted by (to, from) in output order, and stable, so an edge's risks
	// keep declaration order: two counting sorts by rank, since ranks are
	// small integers and a comparison sort of this many matches cost more
	// than the rest of this function.
	scratch := make([]match, len(matches))
	sortByRank(scratch, matches, len(order), func(m match) int32 { return m.from })
	sortByRank(matches, scratch, len(order), func(m match) int32 { return m.to })
	groupOf := map[string]int{}
	var groups []graph.ConditionalEdge
	var keyBuf []byte
	for len(matches) > 0 {
		n := 1
		for n < len(matches) && matches[n].from == matches[0].from && matches[n].to == matches[0].to {
			n++
		}
		edge := matches[:n]
		matches = matches[n:]
		keyBuf = keyBuf[:0]
		for _, mt := range edge {
			keyBuf = strconv.AppendInt(append(keyBuf, ','), int64(mt.risk), 10)
		}
		gi, ok := groupOf[string(keyBuf)]
		if !ok {
			gi = len(groups)
			groupOf[string(keyBuf)] = gi
			ce := graph.ConditionalEdge{}
			for _, mt := range edge {
				ce.Risks = append(ce.Risks, risks[mt.risk])
			}
			groups = append(groups, ce)
		}
		from, to := g.Node(order[edge[0].from]), g.Node(order[edge[0].to])
		groups[gi].Edges = append(groups[gi].Edges, graph.EdgeRef{From: from.Version, To: to.Version})
	}
	return groups
}

// match is a risk applying to an edge, whose releases are given by rank
// (position in output order).
type match struct{ from, to, risk int32 }

// sortByRank writes ms into out stably sorted by rank(m), ranks being
// below n.
func sortByRank(out, ms []match, n int, rank func(match) int32) {
	start := make([]int, n+1)
	for _, m := range ms {
		start[rank(m)+1]++
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	for _, m := range ms {
		r := rank(m)
		out[start[r]] = m
		start[r]++
	}
}

// internRisk gives equal risks one id: upstream groups by risk content.
func internRisk(ids map[string]int, risks *[]graph.Risk, r graph.Risk) int {
	// Each field length-prefixed, so no two risks share a key.
	key := make([]byte, 0, 64+len(r.URL)+len(r.Name)+len(r.Message))
	field := func(s string) {
		key = strconv.AppendInt(key, int64(len(s)), 10)
		key = append(append(key, ':'), s...)
	}
	field(r.URL)
	field(r.Name)
	field(r.Message)
	for _, mr := range r.MatchingRules {
		field(mr.Type)
		field(mr.PromQL)
	}
	if id, ok := ids[string(key)]; ok {
		return id
	}
	ids[string(key)] = len(*risks)
	*risks = append(*risks, r)
	return len(*risks) - 1
}
