package validate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/tree/version"
)

// The lints of this file check risks against what clusters do with them
// since 2025–2026 (ecosystem.md §8 F1, F10), which graph-data's CI
// (B6, B14) predates. The CVO quoted is openshift/cluster-version-operator
// as of July 2026: pkg/risk/risk.go (validName, Merge), pkg/cvo/cvo.go
// (the in-cluster risk sources), pkg/cvo/availableupdates.go
// (loadRiskVersions) and pkg/cvo/status.go (conditionalUpdateRisks).

// clusterRiskName is the CVO's validName: risk names clusters accept.
// B6's pattern admits '_', this one does not; it admits '.' and '-',
// which B6 rejects.
var clusterRiskName = regexp.MustCompile(`^[A-Z][A-Za-z0-9.-]*$`)

// inClusterRisk is a name, or a prefix of names, of the risks the CVO's
// own risk sources raise and merges, by name, with the update service's.
type inClusterRisk struct {
	name   string
	prefix bool   // name is a prefix (…* in F10)
	source string // the CVO risk source raising it
}

// inClusterRisks are the names the CVO's sources raise (pkg/cvo/cvo.go
// registers them; the alert names are the ones pkg/risk/alert turns into
// risks whatever their severity), then the prefixes F10 reserves.
var inClusterRisks = []inClusterRisk{
	{"ClusterVersionUpdating", false, "ClusterVersionUpdating"},
	{"ClusterVersionOverrides", false, "ClusterVersionOverrides"},
	{"ResourceDeletionInProgress", false, "ResourceDeletionInProgress"},
	{"ResourceDeletionInProgressUnknown", false, "ResourceDeletionInProgress"},
	{"AdminAckUnknown", false, "AdminAck"},
	{"ClusterOperatorUpgradeableUnknown", false, "ClusterOperatorUpgradeable"},
	{"ClusterOperatorUpgradeable-", true, "ClusterOperatorUpgradeable"}, // one per ClusterOperator with Upgradeable=False
	{"PodDisruptionBudgetLimit", false, "Alert"},
	{"PodDisruptionBudgetAtLimit", false, "Alert"},
	{"KubeContainerWaiting", false, "Alert"},
	{"KubeletHealthState", false, "Alert"},
	{"KubeNodeNotReady", false, "Alert"},
	{"KubeNodeReadinessFlapping", false, "Alert"},
	{"KubeNodeUnreachable", false, "Alert"},
	{"VirtHandlerDaemonSetRolloutFailing", false, "Alert"},
	{"VMCannotBeEvicted", false, "Alert"},
}

// reservedPrefixes are F10's prefixes of in-cluster risk names: no source
// raises a name merely starting with one today, but the CVO names its
// sources' risks after them and the Alert source after the firing alert
// (Alertmanager's own alerts start with Alert). source says which risks.
var reservedPrefixes = []inClusterRisk{
	{"Alert", true, "the Alert source's, named after the firing alert"},
	{"AdminAck", true, "AdminAck<gate> and AdminAckUnknown"},
	{"ClusterOperatorUpgradeable", true, "ClusterOperatorUpgradeable-<operator> and ClusterOperatorUpgradeableUnknown"},
	{"ClusterVersion", true, "ClusterVersionUpdating and ClusterVersionOverrides"},
	{"ResourceDeletionInProgress", true, "ResourceDeletionInProgress and ResourceDeletionInProgressUnknown"},
}

// matchInCluster returns the entry of list that name collides with.
func matchInCluster(name string, list []inClusterRisk) (inClusterRisk, bool) {
	for _, r := range list {
		if name == r.name || r.prefix && strings.HasPrefix(name, r.name) {
			return r, true
		}
	}
	return inClusterRisk{}, false
}

// riskNames checks the names of the risks upstream serves against what
// clusters do with names: L-risk-name-pattern (the CVO's pattern) and
// L-risk-name-reserved (the names of the CVO's own risks).
func (c *checker) riskNames(r *report) {
	for _, e := range c.parsedEdges() {
		if e.shape != risk {
			continue
		}
		name, _ := e.m.str("name") // classify made sure it is a string
		line := e.m.line("name")
		// A name B6 rejects fails the cluster's pattern too, unless it
		// has '.' or '-': B6's error is enough.
		if camelCase.MatchString(name) && !clusterRiskName.MatchString(name) {
			r.warnf(e.file, line, "L-risk-name-pattern", "risk name %s does not match %s, the CVO's pattern for risk names (pkg/risk validName; B6 admits '_'): the CVO checks only its in-cluster risks against it today, so this risk is still served, but it would be dropped as an invalid risk name were update-service risks merged as those are", name, clusterRiskName)
		}
		if ic, ok := matchInCluster(name, inClusterRisks); ok {
			what := "is the name of a risk"
			if ic.prefix {
				what = "is named like the risks (" + ic.name + "<name>)"
			}
			r.errorf(e.file, line, "L-risk-name-reserved", "risk name %s %s the CVO's in-cluster %s risk source raises (ecosystem.md §8 F10): clusters key risks by name, so on updates carrying both the CVO reports \"divergent definitions of risk\" and drops its own, evaluates one body for every update listing the name, and an acceptRisks entry for %s accepts both", name, what, ic.source, name)
		} else if ic, ok := matchInCluster(name, reservedPrefixes); ok {
			r.warnf(e.file, line, "L-risk-name-reserved", "risk name %s starts with %s, a prefix ecosystem.md §8 F10 reserves for the risks the CVO raises itself (%s; F10: Alert…, ClusterOperatorUpgradeable-*, AdminAck*, ClusterVersion*, ResourceDeletionInProgress*): none has this exact name today, but one that does would be merged with it by name", name, ic.name, ic.source)
		}
	}
}

// riskBody is what a cluster receives of a risk besides its name: url,
// message and matchingRules as upstream deserializes them (type and
// promql.promql; other keys dropped).
type riskBody struct {
	url, message, rules string
}

func bodyOf(m *mapping) riskBody {
	var b riskBody
	b.url, _ = m.str("url")
	b.message, _ = m.str("message")
	var rules strings.Builder
	for _, item := range m.values["matchingRules"].Content {
		rule := asMapping(item)
		t, _ := rule.str("type")
		q := ""
		if pm := asMapping(rule.values["promql"]); pm != nil {
			q, _ = pm.str("promql")
		}
		fmt.Fprintf(&rules, "%q %q;", t, q)
	}
	b.rules = rules.String()
	return b
}

// differences names the fields in which a and b differ.
func (a riskBody) differences(b riskBody) string {
	var out []string
	if a.url != b.url {
		out = append(out, "url")
	}
	if a.message != b.message {
		out = append(out, "message")
	}
	if a.rules != b.rules {
		out = append(out, "matchingRules")
	}
	return strings.Join(out, ", ")
}

// divergentRisks is L-risk-divergent: one name with two bodies in one
// channel × arch graph. Clusters key conditional risks by name (F1): the
// CVO evaluates every update listing the name with the body of the
// highest target version carrying it (loadRiskVersions) and lists only
// the first body in status.conditionalUpdateRisks, so one edge's risk is
// judged by the other's matchingRules. B14 compares files across the
// whole tree and on more keys; this rule looks at what is served
// together, on the files upstream reads (.yaml or not).
func (c *checker) divergentRisks(r *report) {
	type riskFile struct {
		e    *edgeFile
		body riskBody
	}
	byName := map[string][]riskFile{}
	var names []string
	for _, e := range c.parsedEdges() {
		if e.shape != risk {
			continue
		}
		name, _ := e.m.str("name")
		if _, ok := byName[name]; !ok {
			names = append(names, name)
		}
		byName[name] = append(byName[name], riskFile{e, bodyOf(e.m)})
	}
	var graphs []*channelGraph // built only when some name has two bodies
	for _, name := range names {
		fs := byName[name]
		if !slices.ContainsFunc(fs[1:], func(f riskFile) bool { return f.body != fs[0].body }) {
			continue
		}
		if graphs == nil {
			graphs = c.channelGraphs()
		}
		carried := make([][]carriedIn, len(fs))
		for i, f := range fs {
			carried[i] = carrying(graphs, f.e)
		}
		for j := 1; j < len(fs); j++ {
			for i := range j {
				if fs[i].body == fs[j].body {
					continue
				}
				common := commonGraphs(carried[i], carried[j])
				if len(common) == 0 {
					continue
				}
				a, b := fs[i].e, fs[j].e
				r.errorf(b.file, b.m.line("name"), "L-risk-divergent", "risk %s differs in %s from %s:%d, and both are served in %s (edges %s here, %s there): clusters key conditional risks by name, so the CVO evaluates every update listing %s with the body of the highest target version carrying it and shows only the first body it meets in status.conditionalUpdateRisks; one of these edges is judged by the other file's rules",
					name, fs[i].body.differences(fs[j].body), a.file, a.m.line("name"), describeGraphs(common), common[0].bEdge, common[0].aEdge, name)
				break // one finding per file, against the first file it conflicts with
			}
		}
	}
}

// channelGraph is one channel × arch graph as far as graph-data tells:
// the channel's versions released for the arch (all of them without a
// release set). Its edges are not known without the releases' previous
// lists; any edge from a lower member to a higher one may exist.
type channelGraph struct {
	channel string
	arch    string
	members []known // ascending
	has     map[string]bool
}

// arches are the arches graphs are built for: the releases', or the
// production arches.
func (c *checker) arches() []string {
	if c.opts.Releases == nil {
		return productionArches
	}
	var arches []string
	for _, r := range c.opts.Releases {
		if !slices.Contains(arches, r.Build()) {
			arches = append(arches, r.Build())
		}
	}
	slices.Sort(arches)
	return arches
}

// channelGraphs lists the graphs of the channels upstream reads.
func (c *checker) channelGraphs() []*channelGraph {
	var released map[string]bool
	if c.opts.Releases != nil {
		released = map[string]bool{}
		for _, r := range c.opts.Releases {
			released[r.String()] = true
		}
	}
	arches := c.arches()
	var out []*channelGraph
	for _, ch := range c.channels {
		if !ch.read {
			continue
		}
		for _, arch := range arches {
			g := &channelGraph{channel: ch.name, arch: arch, has: map[string]bool{}}
			for _, e := range ch.entries {
				s := e.v.StringWithBuild(arch)
				if b := e.v.Build(); b != "" && b != arch || released != nil && !released[s] || g.has[e.v.Key()] {
					continue
				}
				g.has[e.v.Key()] = true
				g.members = append(g.members, known{s: s, arch: arch, v: e.v})
			}
			slices.SortFunc(g.members, func(a, b known) int { return version.Compare(a.v, b.v) })
			out = append(out, g)
		}
	}
	return out
}

// carriedIn is a graph a risk file applies to, with one of its edges.
type carriedIn struct {
	g    *channelGraph
	edge string
}

// carrying lists the graphs holding an edge e applies to: e's to is a
// member, and so is a lower version its from matches.
func carrying(graphs []*channelGraph, e *edgeFile) []carriedIn {
	matched := map[string]bool{}
	var out []carriedIn
	for _, g := range graphs {
		if b := e.to.Build(); b != "" && b != g.arch || !g.has[e.to.Key()] {
			continue
		}
		for _, m := range g.members {
			if version.Compare(m.v, e.to) >= 0 {
				break
			}
			ok, seen := matched[m.s]
			if !seen {
				ok = e.from.MatchString(m.s)
				matched[m.s] = ok
			}
			if ok {
				out = append(out, carriedIn{g, m.v.Key() + " → " + e.to.Key()})
				break
			}
		}
	}
	return out
}

// sharedGraph is a graph two risk files both apply to.
type sharedGraph struct {
	g            *channelGraph
	aEdge, bEdge string
}

func commonGraphs(a, b []carriedIn) []sharedGraph {
	var out []sharedGraph
	for _, x := range a {
		for _, y := range b {
			if x.g == y.g {
				out = append(out, sharedGraph{x.g, x.edge, y.edge})
			}
		}
	}
	return out
}

func describeGraphs(gs []sharedGraph) string {
	first := fmt.Sprintf("channel %s, arch %s", gs[0].g.channel, gs[0].g.arch)
	switch n := len(gs) - 1; n {
	case 0:
		return first
	case 1:
		return first + " and 1 other channel × arch graph"
	default:
		return fmt.Sprintf("%s and %d other channel × arch graphs", first, n)
	}
}
