package edges

import (
	"context"
	"slices"
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
	riskIDs := map[string]int{}
	var risks []graph.Risk
	ids := make([]int, len(g.Declarations))
	for k, d := range g.Declarations {
		ids[k] = internRisk(riskIDs, &risks, d.Risk)
	}
	// Declarations are matched on every core, those with the same pattern
	// by the same worker, each worker with its own memo of regex results;
	// the graph is only read meanwhile. A declaration keeps its pattern's
	// results (nil: it matches every source).
	targets := make([][]int, len(g.Declarations))
	results := make([][]int8, len(g.Declarations))
	byPattern := samePattern(len(g.Declarations), func(k int) string { return g.Declarations[k].From.String() })
	_ = parallel.Run(context.Background(), len(matchers), len(byPattern), func(_ context.Context, w, j int) error {
		for _, k := range byPattern[j] {
			d, m := g.Declarations[k], matchers[w]
			ts := byPrefix[d.To]
			if i, ok := g.Lookup(d.To); ok {
				ts = append([]int{i}, ts...)
			}
			targets[k] = ts
			if d.From.String() == ".*" {
				continue
			}
			re := m.memo(d.From)
			results[k] = m.resultsOf(re)
			for _, x := range ts {
				for _, y := range g.ParentsView(x) {
					m.matchWith(results[k], re, y)
				}
			}
		}
		return nil
	})
	// Edges are then visited in output order, (to, from) by rank, each
	// collecting its risks in declaration order: the declarations by
	// target, and the targets' sources in rank order, are both filled by
	// walking in order, so nothing is sorted (a sort of the half million
	// (edge, risk) matches at real scale cost more than the rest).
	order := g.SortedOrder()
	declsOf := make([][]int32, g.Len()) // target → declarations, ascending
	for k, ts := range targets {
		for _, x := range ts {
			declsOf[x] = append(declsOf[x], int32(k))
		}
	}
	// A target's sources are its parents: the lists are cut to size from
	// one array (appending to them as found copied them again at every
	// growth, 5 MB a build at real scale), as are the edges' group
	// memberships below.
	sources := make([][]int, g.Len()) // target → sources by rank
	total := 0
	for x, decls := range declsOf {
		if decls != nil {
			total += len(g.ParentsView(x))
		}
	}
	flat := make([]int, total)
	for x, decls := range declsOf {
		if decls != nil {
			n := len(g.ParentsView(x))
			sources[x], flat = flat[:0:n], flat[n:]
		}
	}
	for _, y := range order {
		for _, x := range g.ChildrenView(y) {
			if declsOf[x] != nil {
				sources[x] = append(sources[x], y)
			}
		}
	}
	// Each edge's group is found first and the groups' edge lists made
	// to size afterwards.
	type member struct{ group, from, to int32 }
	members := make([]member, 0, total)
	groupOf := map[string]int{}
	var groups []graph.ConditionalEdge
	var sizes []int
	var keyBuf []byte
	var edgeRisks, lastRisks []int
	gi := -1 // the group of lastRisks
	for _, x := range order {
		decls := declsOf[x]
		if decls == nil {
			continue
		}
		for _, y := range sources[x] {
			edgeRisks = edgeRisks[:0]
			for _, k := range decls {
				if results[k] == nil || results[k][y] == matched {
					edgeRisks = append(edgeRisks, ids[k])
				}
			}
			if len(edgeRisks) == 0 {
				continue
			}
			// Neighbouring edges mostly carry the same risks.
			if gi < 0 || !slices.Equal(edgeRisks, lastRisks) {
				lastRisks = append(lastRisks[:0], edgeRisks...)
				keyBuf = keyBuf[:0]
				for _, id := range edgeRisks {
					keyBuf = strconv.AppendInt(append(keyBuf, ','), int64(id), 10)
				}
				var ok bool
				gi, ok = groupOf[string(keyBuf)]
				if !ok {
					gi = len(groups)
					groupOf[string(keyBuf)] = gi
					ce := graph.ConditionalEdge{}
					for _, id := range edgeRisks {
						ce.Risks = append(ce.Risks, risks[id])
					}
					groups = append(groups, ce)
					sizes = append(sizes, 0)
				}
			}
			members = append(members, member{int32(gi), int32(y), int32(x)})
			sizes[gi]++
		}
	}
	for i := range groups {
		groups[i].Edges = make([]graph.EdgeRef, 0, sizes[i])
	}
	for _, m := range members {
		groups[m.group].Edges = append(groups[m.group].Edges, graph.EdgeRef{From: g.Node(int(m.from)).Version, To: g.Node(int(m.to)).Version})
	}
	return groups
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
