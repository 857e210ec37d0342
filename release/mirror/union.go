package mirror

import (
	"cmp"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tree/version"
)

// union accumulates answers into one graph-builder graph.
type union struct {
	g   *graph.Graph
	log *slog.Logger
	// servedBy names the first answer that had each node, for conflict
	// messages.
	servedBy map[int]job
	risks    map[pair]pairRisks
	lists    map[string]pairRisks // by key: the first of each distinct risk list
	answers  []answer
}

type pair struct{ from, to int }

type pairRisks struct {
	risks []graph.Risk
	key   string // canonical encoding of risks
	by    job
}

// answer is what verify needs of one answer after it was merged.
type answer struct {
	job          job
	nodes        []int // union indices, ascending
	edges, conds int   // distinct edges and conditional edges kept
}

func newUnion(log *slog.Logger) *union {
	return &union{g: graph.New(), log: log, servedBy: map[int]job{}, risks: map[pair]pairRisks{}, lists: map[string]pairRisks{}}
}

// restore undoes the arch filter on a served version: the filter removed
// the build identifiers equal to the arch, so putting the arch back as a
// build identifier gives a version that is served exactly as it was.
// Releases a graph-builder scraped have the arch as their whole build
// ("4.7.4+amd64", "4.2.10-s390x+s390x"); any other identifiers the
// endpoint still shows are kept in front of it.
func restore(v version.Version, arch string) string {
	if b := v.Build(); b != "" {
		return v.WithBuild(b + "." + arch).String()
	}
	return v.WithBuild(arch).String()
}

// add merges one answer.
func (u *union) add(j job, d *served) error {
	idx := make([]int, len(d.nodes))
	byServed := make(map[string]int, len(d.nodes))
	for k, sn := range d.nodes {
		md := maps.Clone(sn.metadata)
		md[graph.KeyArch] = j.arch
		n := &graph.Node{Version: restore(sn.version, j.arch), Payload: sn.payload, Metadata: md}
		i, ok := u.g.Lookup(n.Version)
		if ok {
			if diff := nodeDiff(u.g.Node(i), n); diff != "" {
				first := u.servedBy[i]
				return fmt.Errorf("release %s (arch %s) differs between channel %s and channel %s: %s: %w",
					sn.version, j.arch, first.channel, j.channel, diff, ErrInconsistent)
			}
		} else {
			i, _ = u.g.AddNode(n) // versions are unique: Lookup failed
			u.servedBy[i] = j
		}
		idx[k] = i
		byServed[sn.version.String()] = i
	}
	edges := make(map[pair]bool, len(d.edges))
	for _, e := range d.edges {
		edges[pair{idx[e[0]], idx[e[1]]}] = true
		u.g.AddEdge(idx[e[0]], idx[e[1]])
	}
	conds, err := u.addConditional(j, d, byServed)
	if err != nil {
		return err
	}
	nodes := slices.Clone(idx)
	slices.Sort(nodes)
	u.answers = append(u.answers, answer{job: j, nodes: nodes, edges: len(edges), conds: conds})
	return nil
}

// addConditional records each conditional edge of the answer with its
// risk list. An edge listed in several entries of one answer gets the
// risks of all of them, in entry order: clusters expect every target in
// one entry carrying all of its risks, and that is how it will be served.
func (u *union) addConditional(j job, d *served, byServed map[string]int) (int, error) {
	local := map[pair]*riskList{}
	rl := &riskLists{url: j.url}
	var order []pair
	dropped := 0
	for _, ce := range d.conditional {
		var own *riskList                 // the entry's list, shared by its edges seen first here
		memo := map[*riskList]*riskList{} // lists merged with this entry
		for _, e := range ce.Edges {
			from, ok1 := byServed[e.From]
			to, ok2 := byServed[e.To]
			if !ok1 || !ok2 {
				// Upstream's arch filter keeps conditional edges by substring
				// match (spec §6.7); one whose release is not in the answer
				// cannot be served by the generator, so it is not mirrored.
				dropped++
				continue
			}
			p := pair{from, to}
			l, seen := local[p]
			if !seen {
				order = append(order, p)
				if own == nil {
					own = &riskList{risks: ce.Risks}
				}
				own.refs++
				local[p] = own
				continue
			}
			m, err := rl.merge(l, ce.Risks, memo)
			if err != nil {
				return 0, err
			}
			local[p] = m
		}
	}
	if dropped > 0 {
		u.log.Warn("conditional edges between releases not in the answer are not mirrored", "url", j.url, "edges", dropped)
	}
	for _, p := range order {
		pr := u.pairRisks(local[p], j)
		if prev, ok := u.risks[p]; ok {
			if prev.key != pr.key {
				return 0, fmt.Errorf("conditional edge %s -> %s (arch %s) has risks %s in channel %s but %s in channel %s: %w",
					u.g.Node(p.from).Version, u.g.Node(p.to).Version, j.arch, riskNames(prev.risks), prev.by.channel,
					riskNames(pr.risks), j.channel, ErrInconsistent)
			}
			continue
		}
		u.risks[p] = pr
	}
	return len(order), nil
}

// pairRisks shares one key and one list among the pairs with equal risk
// lists: a real-scale graph has 200,000 conditional edges but far fewer
// distinct lists, and a key per edge made most of an 870 MB heap (now
// 180 MB) when mirroring the real-scale tree.
func (u *union) pairRisks(l *riskList, j job) pairRisks {
	key := l.keyOf()
	if shared, ok := u.lists[key]; ok {
		return pairRisks{risks: shared.risks, key: shared.key, by: j}
	}
	pr := pairRisks{risks: l.risks, key: key, by: j}
	u.lists[key] = pr
	return pr
}

// finish groups the conditional edges and checks the union reproduces
// every answer.
func (u *union) finish() (*graph.Graph, error) {
	if err := u.g.CheckAcyclic(); err != nil {
		return nil, fmt.Errorf("union of the fetched graphs: %w: %w", err, ErrInconsistent)
	}
	u.g.Conditional = u.groups()
	if err := u.verify(); err != nil {
		return nil, err
	}
	return u.g, nil
}

// groups builds conditional-edge groups the way edge-add-remove does
// (spec §4.5, release/edges): one group per distinct ordered risk list,
// edges ordered by target then source in output order, groups by their
// first edge. A policy view keeps a graph group as one entry restricted
// to the channel, so an endpoint that groups by risk list (upstream and
// upgraph both do) gets its own grouping back in every channel, and the
// union of a mirror is the same graph as the mirror's source.
func (u *union) groups() []graph.ConditionalEdge {
	rank := u.g.Ranks()
	pairs := slices.Collect(maps.Keys(u.risks))
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(rank[a.to], rank[b.to]), cmp.Compare(rank[a.from], rank[b.from]))
	})
	groupOf := map[string]int{}
	var groups []graph.ConditionalEdge
	for _, p := range pairs {
		pr := u.risks[p]
		gi, ok := groupOf[pr.key]
		if !ok {
			gi = len(groups)
			groupOf[pr.key] = gi
			groups = append(groups, graph.ConditionalEdge{Risks: pr.risks})
		}
		groups[gi].Edges = append(groups[gi].Edges, graph.EdgeRef{From: u.g.Node(p.from).Version, To: u.g.Node(p.to).Version})
	}
	return groups
}

// verify filters the union for every answer's channel and arch, as the
// generator will, and checks it gets the answer back. Nodes and edges
// of an answer are in the union by construction, so comparing the node
// set and the edge counts is enough to find releases or edges that
// another answer added, and releases whose channels metadata does not
// list the channel they were served in.
func (u *union) verify() error {
	ix := policy.NewIndex(u.g)
	for _, a := range u.answers {
		v := ix.View(a.job.channel, a.job.arch)
		got := slices.Clone(v.Nodes)
		slices.Sort(got)
		if !slices.Equal(got, a.nodes) {
			return fmt.Errorf("channel %s, arch %s: %w", a.job.channel, a.job.arch, u.nodeSetDiff(a, got))
		}
		if len(v.Edges) != a.edges || len(v.ConditionalPairs) != a.conds {
			return fmt.Errorf("channel %s, arch %s: %s served %d edges and %d conditional edges, but its releases have %d and %d in the other answers: %w",
				a.job.channel, a.job.arch, a.job.url, a.edges, a.conds, len(v.Edges), len(v.ConditionalPairs), ErrInconsistent)
		}
	}
	return nil
}

func (u *union) nodeSetDiff(a answer, got []int) error {
	for _, i := range a.nodes {
		if _, ok := slices.BinarySearch(got, i); !ok {
			n := u.g.Node(i)
			return fmt.Errorf("%s served release %s, but its %s metadata (%q) does not list the channel, so the mirror would not serve it",
				a.job.url, n.Version, graph.KeyChannels, n.Metadata[graph.KeyChannels])
		}
	}
	for _, i := range got {
		if _, ok := slices.BinarySearch(a.nodes, i); !ok {
			return fmt.Errorf("release %s, served in channel %s, lists this channel in its metadata, but %s did not serve it: %w",
				u.g.Node(i).Version, u.servedBy[i].channel, a.job.url, ErrInconsistent)
		}
	}
	return nil
}

// nodeDiff describes the first difference between two restored nodes.
func nodeDiff(a, b *graph.Node) string {
	if a.Payload != b.Payload {
		return fmt.Sprintf("payload %q vs %q", a.Payload, b.Payload)
	}
	keys := slices.Sorted(maps.Keys(a.Metadata))
	for k := range b.Metadata {
		if _, ok := a.Metadata[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		av, aok := a.Metadata[k]
		bv, bok := b.Metadata[k]
		switch {
		case !aok:
			return fmt.Sprintf("metadata %q absent vs %q", k, bv)
		case !bok:
			return fmt.Sprintf("metadata %q %q vs absent", k, av)
		case av != bv:
			return fmt.Sprintf("metadata %q %q vs %q", k, av, bv)
		}
	}
	return ""
}

// riskKey is a canonical encoding of a risk list: equal keys are equal
// lists, field by field, in order.
func riskKey(risks []graph.Risk) string { return string(graph.AppendRisks(nil, risks)) }

func riskNames(risks []graph.Risk) []string {
	names := make([]string, len(risks))
	for i, r := range risks {
		names[i] = r.Name
	}
	return names
}
