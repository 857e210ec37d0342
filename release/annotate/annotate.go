// Package annotate applies parsed graph-data to a graph the way upstream's
// openshift-secondary-metadata-parse plugin does (spec §3.4–§3.9): it only
// writes node metadata and appends conditional-risk declarations; edges are
// changed later by package edges.
package annotate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/version"
)

// Options selects upstream's behaviour where it is a known quirk.
type Options struct {
	// UpstreamQuirks reproduces upstream byte for byte where it is probably
	// accidental: a second unconditional block for the same target replaces
	// the first instead of adding to it, a conditional risk whose "to" names
	// one architecture marks every architecture's release, and a channel
	// declared by two files is listed twice on its releases.
	UpstreamQuirks bool
}

// Apply annotates g with gd and returns warnings worth showing a user.
func Apply(g *graph.Graph, gd *graphdata.GraphData, opts Options) []string {
	a := &annotator{g: g, opts: opts, byKey: map[string][]int{}}
	a.index()
	a.raw(gd.Raw)
	a.blocks(gd.Blocks)
	a.risks(gd.Risks)
	a.channels(gd.Channels)
	normalizeChannels(g)
	return a.warnings
}

type annotator struct {
	g        *graph.Graph
	opts     Options
	byKey    map[string][]int // version without build → concrete nodes
	arches   []string         // distinct build strings of all SemVer nodes (spec §3.5)
	warnings []string
}

func (a *annotator) warnf(format string, args ...any) {
	a.warnings = append(a.warnings, fmt.Sprintf(format, args...))
}

func (a *annotator) index() {
	seen := map[string]bool{}
	for i, n := range a.g.Nodes() {
		v, ok := n.SemVer()
		if !ok {
			continue
		}
		if !seen[v.Build()] {
			seen[v.Build()] = true
			a.arches = append(a.arches, v.Build())
		}
		if !n.Abstract {
			a.byKey[v.Key()] = append(a.byKey[v.Key()], i)
		}
	}
	slices.Sort(a.arches)
}

// raw merges raw/metadata.json into every version-equal concrete node,
// appending to an existing value.
func (a *annotator) raw(entries []graphdata.RawMetadata) {
	for _, e := range entries {
		keys := make([]string, 0, len(e.Metadata))
		for k := range e.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, i := range a.byKey[e.Version.Key()] {
			md := a.g.Node(i).Metadata
			for _, k := range keys {
				if old, ok := md[k]; ok {
					md[k] = old + "," + e.Metadata[k]
				} else {
					md[k] = e.Metadata[k]
				}
			}
		}
	}
}

// concrete returns the concrete node whose version string is v.
func (a *annotator) concrete(v string) (*graph.Node, bool) {
	i, ok := a.g.Lookup(v)
	if !ok || a.g.Node(i).Abstract {
		return nil, false
	}
	return a.g.Node(i), true
}

// blockTargets expands an unconditional block's "to" over architectures
// (spec §3.7 step 1).
func (a *annotator) blockTargets(to version.Version) []string {
	switch {
	case to.Build() != "":
		return []string{to.String()}
	case to.Pre() == "s390x":
		return []string{to.WithBuild("s390x").String()}
	}
	out := make([]string, 0, len(a.arches))
	for _, b := range a.arches {
		out = append(out, to.StringWithBuild(b))
	}
	return out
}

func (a *annotator) blocks(blocks []graphdata.Block) {
	blockedBy := map[string]string{} // target → file that set it in this pass
	for _, b := range blocks {
		for _, t := range a.blockTargets(b.To) {
			n, ok := a.concrete(t)
			if !ok {
				continue
			}
			pattern := b.From.String()
			if first, dup := blockedBy[t]; dup && !a.opts.UpstreamQuirks {
				// Upstream overwrites, silently unblocking the edges of the
				// first file; joining keeps both blocks in force.
				a.warnf("%s and %s both block edges into %s unconditionally; both apply", first, b.File, t)
				n.Metadata[graph.KeyRemoveRegex] += "|" + pattern
				continue
			}
			n.Metadata[graph.KeyRemoveRegex] = pattern
			blockedBy[t] = b.File
		}
	}
}

// riskTargets expands a conditional risk's "to" (spec §3.8 step 2).
func (a *annotator) riskTargets(to version.Version) []string {
	if to.Build() != "" && !a.opts.UpstreamQuirks {
		// Upstream marks every architecture's release here, removing edges it
		// never lists as conditional; naming one arch means that arch only.
		return []string{to.String()}
	}
	out := make([]string, 0, len(a.arches))
	for _, b := range a.arches {
		out = append(out, to.StringWithBuild(b))
	}
	return out
}

func (a *annotator) risks(risks []graphdata.RiskFile) {
	for _, r := range risks {
		a.g.Declarations = append(a.g.Declarations, graph.Declaration{
			From: r.From, To: r.To.String(), Risk: r.Risk, Source: r.File,
		})
		for _, t := range a.riskTargets(r.To) {
			n, ok := a.concrete(t)
			if !ok {
				continue
			}
			if old, ok := n.Metadata[graph.KeyRemoveRegex]; ok {
				n.Metadata[graph.KeyRemoveRegex] = old + "|" + r.From.String()
			} else {
				n.Metadata[graph.KeyRemoveRegex] = r.From.String()
			}
		}
	}
}

// channels appends each channel's name to its members (spec §3.9).
func (a *annotator) channels(channels []graphdata.Channel) {
	declared := map[string]string{}
	for _, ch := range channels {
		if first, dup := declared[ch.Name]; dup {
			a.warnf("%s declares channel %s again (first in %s)", ch.File, ch.Name, first)
		} else {
			declared[ch.Name] = ch.File
		}
		members := map[int]bool{}
		var absent []string
		for _, e := range ch.Versions {
			found := false
			for _, i := range a.byKey[e.Key()] {
				if e.Build() == "" || a.g.Node(i).Version == e.String() {
					members[i] = true
					found = true
				}
			}
			if !found {
				absent = append(absent, e.String())
			}
		}
		if len(absent) > 0 {
			// Upstream leaves them out as silently; an admin whose
			// mirror lacks releases should hear of it once per channel.
			a.warnf("%s: channel %s names %d versions no release has, left out of it: %s (upgraph validate --releases lists each)",
				ch.File, ch.Name, len(absent), sample(absent))
		}
		for _, i := range sortedSet(members) {
			md := a.g.Node(i).Metadata
			old, ok := md[graph.KeyChannels]
			switch {
			case !ok:
				md[graph.KeyChannels] = ch.Name
			case !a.opts.UpstreamQuirks && listHas(old, ch.Name):
			default:
				md[graph.KeyChannels] = old + "," + ch.Name
			}
		}
	}
}

// listHas reports whether the comma-separated list has item, as
// slices.Contains(strings.Split(list, ","), item) without the slice.
func listHas(list, item string) bool {
	for {
		first, rest, more := strings.Cut(list, ",")
		if first == item {
			return true
		}
		if !more {
			return false
		}
		list = rest
	}
}

// sample lists the first few items of a long list.
func sample(items []string) string {
	const n = 5
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

func sortedSet(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// normalizeChannels sorts every node's channel list: lexically, then stably
// by the text after the first '-' (so "candidate-4.2,fast-4.2,stable-4.2,
// candidate-4.3"). A name without '-' sorts by its whole text; upstream
// panics there.
func normalizeChannels(g *graph.Graph) {
	for _, n := range g.Nodes() {
		v, ok := n.Metadata[graph.KeyChannels]
		if !ok {
			continue
		}
		parts := strings.Split(v, ",")
		sort.Strings(parts)
		sort.SliceStable(parts, func(i, j int) bool { return streamSuffix(parts[i]) < streamSuffix(parts[j]) })
		n.Metadata[graph.KeyChannels] = strings.Join(parts, ",")
	}
}

func streamSuffix(name string) string {
	if i := strings.IndexByte(name, '-'); i >= 0 {
		return name[i+1:]
	}
	return name
}
