package model

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/blang/semver/v4"
)

// lintPackage returns the warnings of one package (spec §6 O5) that need
// the whole package: OLM v0 reachability and stranding, deprecated heads,
// skipRange bounds, downgrade edges.
func lintPackage(pkg *Package) Problems {
	var ps Problems
	for _, ch := range pkg.Channels {
		ps = append(ps, lintChannel(ch)...)
	}
	for _, b := range pkg.Bundles {
		if p, ok := v0Unreachable(b); ok {
			ps = append(ps, p)
		}
		if p, ok := v1Refused(b); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// v1Refused reports a bundle OLM v1 never installs or updates to: it
// declares a dependency, and operator-controller validates the bundle it
// resolved with NoDependencyValidation (internal/operator-controller/
// resolve/validation.go, its only resolver validation), failing the
// resolution rather than falling back to an older bundle. An install
// whose resolution picks it stays where it is (Bundle.V1Refusal).
func v1Refused(b *Bundle) (Problem, bool) {
	ref := b.V1Refusal()
	if ref == nil {
		return Problem{}, false
	}
	channels := make([]string, 0, len(b.Entries))
	for _, e := range b.Entries {
		channels = append(channels, e.Channel.Name)
	}
	where := "no channel"
	if len(channels) > 0 {
		where = fmt.Sprintf("channel %s", strings.Join(quoteAll(channels), ", "))
	}
	return newProblem(b.Pos, Warning, RuleV1Refused, b.Package.Name, "", b.Name,
		"OLM v1 never installs or updates to bundle %q (in %s): it declares %s, and operator-controller refuses a resolved bundle that declares a dependency "+
			"(NoDependencyValidation), with no fallback to an older one: a ClusterExtension whose resolution picks it fails and stays where it is; OLM v0 solves the dependency",
		b.Name, where, ref.Property), true
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func lintChannel(ch *Channel) Problems {
	var ps Problems
	pkg := ch.Package
	add := func(sev Severity, rule, bundle, format string, args ...any) {
		ps = append(ps, newProblem(ch.Pos, sev, rule, pkg.Name, ch.Name, bundle, format, args...))
	}
	if h := ch.head; h != nil && h.Bundle != nil && h.Bundle.Deprecation != nil {
		add(Warning, RuleDeprecatedHead, h.Name,
			"the head %q of channel %q is deprecated (%q): OLM v1 prefers any non-deprecated successor; OLM v0 still installs and updates to it",
			h.Name, ch.Name, h.Bundle.Deprecation.Message)
	}
	for _, e := range ch.Entries {
		if e.Range != nil && e.Bundle != nil && e.Bundle.VersionOK {
			if above, bound := rangeAdmitsAbove(e.SkipRange, e.Bundle.Version); above {
				add(Warning, RuleSkipRangeAbove, e.Name,
					"entry %q (version %s) of channel %q: skipRange %q admits versions above its own (%s): clusters on those newer versions are offered %q as an update (operator-registry#2090)",
					e.Name, e.Bundle.Version, ch.Name, e.SkipRange, bound, e.Name)
			}
		}
		if e.Bundle == nil || !e.Bundle.VersionOK {
			continue
		}
		down := func(t EdgeType, from string) {
			fb := pkg.bundleByName[from]
			if fb == nil || !fb.VersionOK || fb.Compare(e.Bundle) <= 0 {
				return
			}
			add(Warning, RuleDowngradeEdge, e.Name,
				"channel %q: %q (%s) %s %q (%s), a higher version: OLM v0 moves a cluster from %s down to %s; OLM v1 keeps %s",
				ch.Name, e.Name, e.Bundle.VersionString(), t, from, fb.VersionString(), fb.VersionString(), e.Bundle.VersionString(), fb.VersionString())
		}
		if e.Replaces != "" {
			down(EdgeReplaces, e.Replaces)
		}
		for _, s := range e.Skips {
			down(EdgeSkips, s)
		}
	}
	if p, ok := v0Stuck(ch); ok {
		ps = append(ps, p)
	}
	return ps
}

// v0Unreachable reports a bundle OLM v0 never updates a cluster to: in
// every channel listing it that OLM v0 can order, it is left out.
func v0Unreachable(b *Bundle) (Problem, bool) {
	var reasons []string
	ordered := false
	for _, e := range b.Entries {
		ch := e.Channel
		if ch.v0Err != nil {
			continue
		}
		ordered = true
		if e.OnV0Chain {
			return Problem{}, false
		}
		if e.SkippedBy != "" {
			reasons = append(reasons, fmt.Sprintf("skipped by %q in channel %q", e.SkippedBy, ch.Name))
		} else {
			reasons = append(reasons, fmt.Sprintf("off the replaces chain from the head in channel %q", ch.Name))
		}
	}
	if !ordered {
		return Problem{}, false
	}
	return newProblem(b.Pos, Warning, RuleV0Unreachable, b.Package.Name, "", b.Name,
		"OLM v0 never updates a cluster to bundle %q (%s); only a startingCSV installs it; OLM v1 can select it",
		b.Name, strings.Join(reasons, "; ")), true
}

// v0Stuck reports the entries of a channel from which OLM v0, one
// resolution at a time on this channel, never reaches the head.
//
// Each entry's next pick asks only the entries that may have an edge
// from it (the channel's v0EdgeIndex), and where each walk stops is
// found for all entries at once (v0WalkEnds), so that a long replaces
// chain costs linear time, not a walk to the head per entry.
func v0Stuck(ch *Channel) (Problem, bool) {
	if ch.v0Err != nil || len(ch.v0Chain) == 0 {
		return Problem{}, false
	}
	head := ch.v0Chain[0]
	ends := v0WalkEnds(ch.Entries, v0Picks(ch))
	var stuck []string
	for _, e := range ch.Entries {
		if e.Bundle == nil || e == head {
			continue
		}
		if cur := ends[e]; cur != head {
			stuck = append(stuck, fmt.Sprintf("%s (stops at %s)", e.Name, cur.Name))
		}
	}
	if len(stuck) == 0 {
		return Problem{}, false
	}
	slices.Sort(stuck)
	return newProblem(ch.Pos, Warning, RuleV0Stuck, ch.Package.Name, ch.Name, "",
		"channel %q: OLM v0 installs on %d entries never reach the head %q by one-hop updates: %s",
		ch.Name, len(stuck), head.Name, strings.Join(stuck, ", ")), true
}

// v0Picks returns, for each entry of the channel with a bundle, the
// entry OLM v0 moves an install on it to, one resolution on this
// channel (none when that is the entry itself or there is none).
func v0Picks(ch *Channel) map[*Entry]*Entry {
	next := make(map[*Entry]*Entry, len(ch.Entries))
	index := ch.v0EdgeIndex()
	var buf []int
	for _, e := range ch.Entries {
		if e.Bundle == nil {
			continue
		}
		inst := newV0Installed(e.Bundle.InstalledV0())
		buf = index.appendFrom(buf[:0], inst)
		for _, i := range buf {
			if c := ch.v0Chain[i]; len(v0Edges(c, inst)) > 0 {
				if c != e {
					next[e] = c
				}
				break
			}
		}
	}
	return next
}

// v0WalkEnds returns, for each of entries, where the walk from it along
// next stops: at an entry without a next, or, where the walk comes back
// to an entry it has passed (a loop), at the entry before that one —
// for an entry on a loop, the one before it on the loop; for one leading
// into a loop, the one before the loop's first entry it reaches. Each
// entry is visited once.
func v0WalkEnds(entries []*Entry, next map[*Entry]*Entry) map[*Entry]*Entry {
	const (
		onPath = 1
		done   = 2
	)
	state := make(map[*Entry]int, len(entries))
	end := make(map[*Entry]*Entry, len(entries))
	var path []*Entry
	for _, s := range entries {
		path = path[:0]
		cur := s
		for cur != nil && state[cur] == 0 {
			state[cur] = onPath
			path = append(path, cur)
			cur = next[cur]
		}
		var tail *Entry // the end of the entries of path before a loop
		switch {
		case cur == nil:
			tail = path[len(path)-1]
		case state[cur] == done:
			tail = end[cur]
		default: // cur is on path: path[at:] is a loop
			at := slices.Index(path, cur)
			loop := path[at:]
			for k, e := range loop {
				end[e], state[e] = loop[(k+len(loop)-1)%len(loop)], done
			}
			tail = end[cur]
			path = path[:at]
		}
		for _, e := range path {
			end[e], state[e] = tail, done
		}
	}
	return end
}

// rangeAdmitsAbove reports whether a skipRange (already parsed by blang)
// admits some version above v, and the bound it has ("unbounded" when a
// branch has no upper bound). It reads the range as blang does: branches
// split on "||", comparators on blanks (a blank after an operator does
// not split). Ranges with wildcards are not judged.
func rangeAdmitsAbove(s string, v semver.Version) (bool, string) {
	for _, branch := range splitRangeOR(splitRangeTokens(s)) {
		var lower, upper *semver.Version
		var lowerIncl, upperIncl bool
		for _, tok := range branch {
			if strings.Contains(tok, "x") {
				return false, ""
			}
			i := strings.IndexFunc(tok, unicode.IsDigit)
			if i < 0 {
				return false, ""
			}
			op := strings.TrimSpace(tok[:i])
			ver, err := semver.Parse(tok[i:])
			if err != nil {
				return false, ""
			}
			setLower := func(incl bool) {
				if lower == nil || ver.GT(*lower) || (ver.EQ(*lower) && !incl) {
					lower, lowerIncl = &ver, incl
				}
			}
			setUpper := func(incl bool) {
				if upper == nil || ver.LT(*upper) || (ver.EQ(*upper) && !incl) {
					upper, upperIncl = &ver, incl
				}
			}
			switch op {
			case ">":
				setLower(false)
			case ">=":
				setLower(true)
			case "<":
				setUpper(false)
			case "<=":
				setUpper(true)
			case "", "=", "==":
				setLower(true)
				setUpper(true)
			}
		}
		if lower != nil && upper != nil && (lower.GT(*upper) || (lower.EQ(*upper) && !(lowerIncl && upperIncl))) {
			continue // empty branch
		}
		if upper == nil {
			return true, "unbounded"
		}
		if upper.GT(v) {
			op := "<"
			if upperIncl {
				op = "<="
			}
			return true, op + upper.String()
		}
	}
	return false, ""
}

// splitRangeTokens is blang's splitAndTrim.
func splitRangeTokens(s string) []string {
	var out []string
	last := 0
	var lastChar byte
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && lastChar != '>' && lastChar != '<' && lastChar != '=' {
			if last < i-1 {
				out = append(out, s[last:i])
			}
			last = i + 1
		} else if s[i] != ' ' {
			lastChar = s[i]
		}
	}
	if last < len(s)-1 {
		out = append(out, s[last:])
	}
	for i, t := range out {
		out[i] = strings.ReplaceAll(t, " ", "")
	}
	return out
}

func splitRangeOR(tokens []string) [][]string {
	var out [][]string
	last := 0
	for i, t := range tokens {
		if t == "||" {
			out = append(out, tokens[last:i])
			last = i + 1
		}
	}
	return append(out, tokens[last:])
}
