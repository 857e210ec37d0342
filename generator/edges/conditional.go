package edges

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/generator/graph"
)

// resolveConditional turns risk declarations into conditional-edge groups
// (spec §4.5): every existing edge into a declaration's target from a
// matching source collects the risk; edges with the same ordered risk list
// form one group. Declarations that match nothing disappear.
func resolveConditional(g *graph.Graph, m *matcher) []graph.ConditionalEdge {
	byPrefix := map[string][]int{}
	for i, n := range g.Nodes() {
		if k := strings.IndexByte(n.Version, '+'); k >= 0 {
			byPrefix[n.Version[:k]] = append(byPrefix[n.Version[:k]], i)
		}
	}
	type pair struct{ from, to int }
	riskIDs := map[string]int{}
	var risks []graph.Risk
	lists := map[pair][]int{}
	var order []pair
	for _, d := range g.Declarations {
		id := internRisk(riskIDs, &risks, d.Risk)
		targets := byPrefix[d.To]
		if i, ok := g.Lookup(d.To); ok {
			targets = append([]int{i}, targets...)
		}
		re := m.memo(d.From)
		matchAll := d.From.String() == ".*"
		for _, x := range targets {
			for _, y := range g.Parents(x) {
				if !matchAll && !m.match(re, y) {
					continue
				}
				p := pair{y, x}
				if _, seen := lists[p]; !seen {
					order = append(order, p)
				}
				lists[p] = append(lists[p], id)
			}
		}
	}
	rank := g.Ranks()
	sort.Slice(order, func(a, b int) bool {
		if ta, tb := rank[order[a].to], rank[order[b].to]; ta != tb {
			return ta < tb
		}
		return rank[order[a].from] < rank[order[b].from]
	})
	groupOf := map[string]int{}
	var groups []graph.ConditionalEdge
	var keyBuf []byte
	for _, p := range order {
		keyBuf = keyBuf[:0]
		for _, id := range lists[p] {
			keyBuf = strconv.AppendInt(append(keyBuf, ','), int64(id), 10)
		}
		key := string(keyBuf)
		gi, ok := groupOf[key]
		if !ok {
			gi = len(groups)
			groupOf[key] = gi
			ce := graph.ConditionalEdge{}
			for _, id := range lists[p] {
				ce.Risks = append(ce.Risks, risks[id])
			}
			groups = append(groups, ce)
		}
		groups[gi].Edges = append(groups[gi].Edges, graph.EdgeRef{From: g.Node(p.from).Version, To: g.Node(p.to).Version})
	}
	return groups
}

// internRisk gives equal risks one id: upstream groups by risk content.
func internRisk(ids map[string]int, risks *[]graph.Risk, r graph.Risk) int {
	key := fmt.Sprintf("%q %q %q %q", r.URL, r.Name, r.Message, r.MatchingRules)
	if id, ok := ids[key]; ok {
		return id
	}
	ids[key] = len(*risks)
	*risks = append(*risks, r)
	return ids[key]
}
