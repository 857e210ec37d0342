package validate

import (
	"cmp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/tree/version"
)

// productionArches are the builds OpenShift releases carry. Without a
// release set, a channel version V stands for V+<arch> of each, since
// blocked-edge regexes are matched against suffixed node versions (§4.3).
var productionArches = []string{"amd64", "arm64", "multi", "ppc64le", "s390x"}

// known is a version string a from regex can meet: a release, or a
// channel version with an arch suffix.
type known struct {
	s    string
	arch string
	v    version.Version // for ordering; build ignored
}

// knownVersions lists channel versions (suffixed with each arch of the
// releases, or the production arches) and release versions, sorted.
func (c *checker) knownVersions() []known {
	arches := c.arches()
	seen := map[string]bool{}
	var ks []known
	add := func(v version.Version, s string) {
		if !seen[s] {
			seen[s] = true
			_, arch, _ := strings.Cut(s, "+")
			ks = append(ks, known{s: s, arch: arch, v: v})
		}
	}
	for _, ch := range c.channels {
		for _, e := range ch.entries {
			if e.v.Build() != "" {
				add(e.v, e.v.String())
				continue
			}
			for _, a := range arches {
				add(e.v, e.v.StringWithBuild(a))
			}
		}
	}
	for _, r := range c.opts.Releases {
		add(r, r.String())
	}
	slices.SortFunc(ks, func(a, b known) int {
		if d := version.Compare(a.v, b.v); d != 0 {
			return d
		}
		return strings.Compare(a.s, b.s)
	})
	return ks
}

// parsedEdges are the blocks and risks upstream's parser applies.
func (c *checker) parsedEdges() []*edgeFile {
	var out []*edgeFile
	for _, e := range c.edges {
		if e.read && e.shape != neither {
			out = append(out, e)
		}
	}
	return out
}

// unmatchedRegexes flags from patterns that match no known version: such
// a block or risk changes nothing, usually because of a typo or a missing
// [+].* for the arch suffix.
func (c *checker) unmatchedRegexes(r *report, ks []known) {
	if len(ks) == 0 {
		return // nothing to match against; every regex would be flagged
	}
	matches := map[string]bool{}
	for _, e := range c.parsedEdges() {
		pat := e.from.String()
		m, done := matches[pat]
		if !done {
			m = slices.ContainsFunc(ks, func(k known) bool { return e.from.MatchString(k.s) })
			matches[pat] = m
		}
		if !m {
			r.warnf(e.file, e.m.line("from"), "L-regex-unmatched", "from %q matches none of the %d known versions (e.g. %s): the %s applies to no edge", pat, len(ks), ks[len(ks)-1].s, kindOf(e))
		}
	}
}

func kindOf(e *edgeFile) string {
	if e.shape == block {
		return "block"
	}
	return "risk"
}

// unknownTargets flags blocks and risks into versions no channel serves.
func (c *checker) unknownTargets(r *report) {
	served := map[string]bool{}
	for _, ch := range c.channels {
		if ch.read {
			for _, e := range ch.entries {
				served[e.v.Key()] = true
			}
		}
	}
	for _, e := range c.parsedEdges() {
		if !served[e.to.Key()] {
			r.warnf(e.file, e.m.line("to"), "L-to-unknown", "%s is in no channel: this %s changes no published graph", e.to, kindOf(e))
		}
	}
}

// blockAndRisk flags risks on edges an unconditional block also matches.
// Upstream computes conditional edges before removing blocked ones
// (§4.5), so such an edge is dropped from edges but still offered as a
// conditional update: the block does not hold and the risk reads as if
// it were the reason.
func (c *checker) blockAndRisk(r *report, ks []known) {
	blocks := map[string][]*edgeFile{}
	for _, e := range c.parsedEdges() {
		if e.shape == block {
			blocks[e.to.Key()] = append(blocks[e.to.Key()], e)
		}
	}
	for _, rf := range c.parsedEdges() {
		if rf.shape != risk {
			continue
		}
		for _, b := range blocks[rf.to.Key()] {
			arch := rf.to.Build()
			if b.to.Build() != "" {
				if arch != "" && arch != b.to.Build() {
					continue
				}
				arch = b.to.Build()
			}
			var from []string
			for _, k := range ks {
				if version.Compare(k.v, rf.to) < 0 && (arch == "" || k.arch == arch) && b.from.MatchString(k.s) && rf.from.MatchString(k.s) {
					from = append(from, k.s)
				}
			}
			if len(from) > 0 {
				r.warnf(rf.file, rf.m.line("from"), "L-block-and-risk", "%d known edges into %s (from %s) are also blocked unconditionally by %s:%d: upstream drops them from edges but still offers them as conditional updates with this risk", len(from), rf.to, sample(from), b.file, b.m.line("from"))
			}
		}
	}
}

// sample lists the first few items, for messages about many versions.
func sample(items []string) string {
	const n = 3
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + ", …"
}

// releasesPresent is R1 (every version graph-data names is a release,
// build ignored) and, for channel entries naming a build, that a release
// of that build exists: channel membership honours an explicit build.
func (c *checker) releasesPresent(r *report) {
	if c.opts.Releases == nil {
		return
	}
	builds := map[string][]string{}
	for _, rel := range c.opts.Releases {
		builds[rel.Key()] = append(builds[rel.Key()], rel.Build())
	}
	for _, e := range c.edges {
		if e.shape == block {
			if _, ok := builds[e.to.Key()]; !ok {
				r.errorf(e.file, e.m.line("to"), "R1", "%s is not among the releases", e.to)
			}
		}
	}
	for _, ch := range c.channels {
		for _, e := range ch.entries {
			bs, ok := builds[e.v.Key()]
			switch {
			case !ok:
				r.errorf(ch.file, e.line, "R1", "%s (channel %s) is not among the releases", e.v, ch.name)
			case ch.read && e.v.Build() != "" && !slices.Contains(bs, e.v.Build()):
				r.warnf(ch.file, e.line, "L-channel-release", "%s selects no release: the releases of %s are %s", e.v, e.v.Key(), describeBuilds(bs))
			}
		}
	}
}

func describeBuilds(bs []string) string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = cmp.Or(b, "(no build)")
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
