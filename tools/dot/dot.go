// Package dot draws a served channel × arch update graph in Graphviz's DOT
// language: what `upgraph dot` prints, for `dot -Tsvg`.
//
// Every release is a node labelled with its version. An update edge is a
// solid arrow; a conditional edge is a dashed orange arrow labelled with
// the names of its risks (its tooltip adds their messages, and it links
// to the first risk's URL).
//
// With Options.Blocked, edges that graph-data removes are added as dotted
// grey arrows. A served graph no longer has them, so they are derived from
// the removal metadata the policy-engine still serves on each release, as
// edge-add-remove applies it (spec §4):
//
//   - "io.openshift.upgrades.graph.previous.remove_regex" on N (blocked
//     edges and conditional risks) names M → N for every release M whose
//     version with the arch as build ("4.15.0+amd64") the regex matches,
//     unanchored, as upstream matches it;
//   - "io.openshift.upgrades.graph.previous.remove" on N, a comma-separated
//     list of versions or "*" for all, names M → N for those M;
//   - "io.openshift.upgrades.graph.next.remove" on M, a comma-separated
//     list, names M → N for those N.
//
// For a regex and "*", M ranges over the releases of the graph older than
// N, of N's minor or the one before (those release metadata lists as
// previous). A pair the graph has as an edge or a conditional edge is not
// drawn again (a conditional risk removes an edge only to serve it as
// conditional). The served graph does not say which of these edges the
// releases' own metadata had, so a dotted edge is one graph-data would
// remove, not proof that it existed: a regex that matches a whole minor
// line draws an edge from each of its releases.
//
// The output is deterministic: nodes by SemVer precedence, edges by
// source then target in that order, blocked edges after the others.
package dot

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree/version"
)

// Options configure Write.
type Options struct {
	// Title labels the drawing, e.g. "stable-4.16 (amd64)".
	Title string
	// Blocked adds the edges graph-data removes (see the package comment);
	// Arch is then the graph's architecture, which removal regexes match.
	Blocked bool
	Arch    string
}

// BlockedEdge is an edge graph-data removes, by node index.
type BlockedEdge struct {
	From, To int
	// Why names the metadata key that removes it.
	Why string
}

// Blocked returns the edges the removal metadata of g's releases names
// that g does not have, sorted by (From, To); see the package comment.
// A removal regex that does not compile is an error.
func Blocked(g *path.Graph, arch string) ([]BlockedEdge, error) {
	found := map[[2]int]string{}
	add := func(from, to int, why string) {
		if from == to {
			return
		}
		if _, ok := g.Edge(from, to); ok {
			return
		}
		if _, ok := found[[2]int{from, to}]; !ok {
			found[[2]int{from, to}] = why
		}
	}
	matches := map[string][]bool{}          // pattern → node → match
	matched := make([]string, len(g.Nodes)) // versions as upstream matches them
	for i, n := range g.Nodes {
		if strings.Contains(n.Version, "+") {
			matched[i] = n.Version + "." + arch
		} else {
			matched[i] = n.Version + "+" + arch
		}
	}
	for to, n := range g.Nodes {
		if pattern, ok := n.Metadata[graph.KeyRemoveRegex]; ok {
			// Releases of a minor line share patterns: match each once.
			m, ok := matches[pattern]
			if !ok {
				re, err := regexp.Compile(pattern)
				if err != nil {
					return nil, fmt.Errorf("release %s: %s: %w", n.Version, graph.KeyRemoveRegex, err)
				}
				m = make([]bool, len(g.Nodes))
				for i := range m {
					m[i] = re.MatchString(matched[i])
				}
				matches[pattern] = m
			}
			for from := range to { // older releases: node order is version order
				if m[from] && plausible(g, from, to) {
					add(from, to, "previous.remove_regex")
				}
			}
		}
		if list, ok := n.Metadata[graph.KeyPreviousRemove]; ok {
			if strings.TrimSpace(list) == "*" {
				for from := range to {
					if plausible(g, from, to) {
						add(from, to, "previous.remove")
					}
				}
			} else {
				for _, from := range lookupList(g, list) {
					add(from, to, "previous.remove")
				}
			}
		}
		if list, ok := n.Metadata[graph.KeyNextRemove]; ok {
			for _, target := range lookupList(g, list) {
				add(to, target, "next.remove")
			}
		}
	}
	out := make([]BlockedEdge, 0, len(found))
	for pair, why := range found {
		out = append(out, BlockedEdge{pair[0], pair[1], why})
	}
	slices.SortFunc(out, func(a, b BlockedEdge) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return out, nil
}

// plausible reports whether release metadata could list from as a
// previous release of to: OpenShift releases list older releases of their
// own minor and of the one before it.
func plausible(g *path.Graph, from, to int) bool {
	a, errA := version.Parse(g.Nodes[from].Version)
	b, errB := version.Parse(g.Nodes[to].Version)
	return errA == nil && errB == nil && a.Major() == b.Major() && a.Minor()+1 >= b.Minor()
}

// lookupList resolves a comma-separated version list; versions may carry
// the arch as build, as graph-data writes them, and the graph's may not.
func lookupList(g *path.Graph, list string) []int {
	var out []int
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		i, ok := g.Lookup(item)
		if !ok {
			base, _, _ := strings.Cut(item, "+")
			i, ok = g.Lookup(base)
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// Write writes g as a DOT digraph.
func Write(w io.Writer, g *path.Graph, opts Options) error {
	var blocked []BlockedEdge
	if opts.Blocked {
		var err error
		if blocked, err = Blocked(g, opts.Arch); err != nil {
			return err
		}
	}
	b := bufio.NewWriter(w)
	b.WriteString("digraph updates {\n")
	legend := "solid: update   dashed: conditional update (risks)"
	if opts.Blocked {
		legend += "   dotted: removed by graph-data"
	}
	label := legend
	if opts.Title != "" {
		label = opts.Title + "\n" + legend
	}
	fmt.Fprintf(b, "  graph [rankdir=LR, labelloc=t, fontname=Helvetica, label=%s];\n", quote(label))
	b.WriteString("  node [shape=box, style=rounded, fontname=Helvetica];\n")
	b.WriteString("  edge [fontname=Helvetica, fontsize=10];\n")
	for _, n := range g.Nodes {
		fmt.Fprintf(b, "  %s;\n", quote(n.Version))
	}
	for _, e := range g.Edges {
		from, to := quote(g.Nodes[e.From].Version), quote(g.Nodes[e.To].Version)
		if !e.Conditional {
			fmt.Fprintf(b, "  %s -> %s;\n", from, to)
			continue
		}
		var tooltip []string
		for _, r := range e.Risks {
			tooltip = append(tooltip, r.Name+": "+strings.TrimSpace(r.Message))
		}
		attrs := fmt.Sprintf("style=dashed, color=darkorange, fontcolor=darkorange, label=%s, tooltip=%s",
			quote(strings.Join(e.RiskNames(), "\n")), quote(strings.Join(tooltip, "\n")))
		if len(e.Risks) > 0 && e.Risks[0].URL != "" {
			attrs += ", URL=" + quote(e.Risks[0].URL)
		}
		fmt.Fprintf(b, "  %s -> %s [%s];\n", from, to, attrs)
	}
	for _, e := range blocked {
		fmt.Fprintf(b, "  %s -> %s [style=dotted, color=grey, constraint=false, tooltip=%s];\n",
			quote(g.Nodes[e.From].Version), quote(g.Nodes[e.To].Version), quote("removed by "+e.Why))
	}
	b.WriteString("}\n")
	return b.Flush()
}

// quote makes s a DOT double-quoted string; a newline becomes a centred
// line break.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}
