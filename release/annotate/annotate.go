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
	normalizeChannels(g, a.normalized)
	return a.warnings
}

type annotator struct {
	g      *graph.Graph
	opts   Options
	byKey  map[string][]int // version without build → concrete nodes
	arches []string         // distinct build strings of all SemVer nodes (spec §3.5)
	// normalized are the nodes whose channel list channels wrote
	// normalized, ascending.
	normalized []int
	warnings   []string
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

// channels appends each channel's name to its members (spec §3.9). Each
// node's names are collected as indices into channels and written once,
// normalized (see normalizeChannels): appending to the metadata string
// channel by channel recopied and rescanned it for every channel.
func (a *annotator) channels(channels []graphdata.Channel) {
	declared := map[string]string{}
	lists := make([][]int32, a.g.Len()) // node → its channels, in order
	last := make([]int32, a.g.Len())    // node → 1 + the channel that last listed it
	for c, ch := range channels {
		if first, dup := declared[ch.Name]; dup {
			a.warnf("%s declares channel %s again (first in %s)", ch.File, ch.Name, first)
		} else {
			declared[ch.Name] = ch.File
		}
		var absent []string
		for _, e := range ch.Versions {
			found := false
			for _, i := range a.byKey[e.Key()] {
				if e.Build() == "" || a.g.Node(i).Version == e.String() {
					found = true
					if last[i] != int32(c+1) {
						last[i] = int32(c + 1)
						lists[i] = append(lists[i], int32(c))
					}
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
	}
	var parts []string
	for i, list := range lists {
		if len(list) == 0 {
			continue
		}
		md := a.g.Node(i).Metadata
		old, ok := md[graph.KeyChannels]
		parts = parts[:0]
		if ok {
			parts = append(parts, strings.Split(old, ",")...)
		}
		for _, c := range list {
			name := channels[c].Name
			if ok && !a.opts.UpstreamQuirks && slices.Contains(parts, name) {
				continue
			}
			parts, ok = append(parts, name), true
		}
		md[graph.KeyChannels] = joinChannels(parts)
		a.normalized = append(a.normalized, i)
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

// normalizeChannels sorts every node's channel list but those channels
// already wrote (skip, ascending): lexically, then stably by the text
// after the first '-' (so "candidate-4.2,fast-4.2,stable-4.2,
// candidate-4.3"). A name without '-' sorts by its whole text; upstream
// panics there.
func normalizeChannels(g *graph.Graph, skip []int) {
	for i, n := range g.Nodes() {
		if len(skip) > 0 && skip[0] == i {
			skip = skip[1:]
			continue
		}
		v, ok := n.Metadata[graph.KeyChannels]
		if !ok {
			continue
		}
		n.Metadata[graph.KeyChannels] = joinChannels(strings.Split(v, ","))
	}
}

// joinChannels sorts a channel list in place as normalizeChannels
// describes and joins it: by the text after the first '-', then by the
// whole name, which is the lexical sort followed by the stable one.
func joinChannels(parts []string) string {
	slices.SortFunc(parts, func(a, b string) int {
		if c := strings.Compare(streamSuffix(a), streamSuffix(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return strings.Join(parts, ",")
}

func streamSuffix(name string) string {
	if i := strings.IndexByte(name, '-'); i >= 0 {
		return name[i+1:]
	}
	return name
}
