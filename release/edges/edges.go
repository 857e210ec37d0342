// Package edges implements upstream's edge-add-remove plugin (spec §4):
// previous/next additions, conditional edges resolved against the graph
// after additions, then previous/next removals, so a removal always wins.
package edges

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

// Options are the plugin settings (spec §4.1).
type Options struct {
	// KeyPrefix defaults to graph.KeyPrefix.
	KeyPrefix string
	// RemoveAllValue is the previous.remove value meaning "every incoming
	// edge"; defaults to "*".
	RemoveAllValue string
	// RemoveConsumedMetadata deletes each key once processed.
	RemoveConsumedMetadata bool
	// SkipConditional leaves the raw declarations unresolved.
	SkipConditional bool
}

// Apply changes g's edges according to its metadata and declarations and
// returns warnings (versions named in metadata that are not in the graph).
func Apply(g *graph.Graph, opts Options) ([]string, error) {
	if opts.KeyPrefix == "" {
		opts.KeyPrefix = graph.KeyPrefix
	}
	if opts.RemoveAllValue == "" {
		opts.RemoveAllValue = "*"
	}
	// The matchers' memos serve both regex passes: the risks' patterns
	// are also pieces of the remove_regex values annotate joins.
	e := &editor{g: g, opts: opts, matchers: newMatchers(g)}
	p := opts.KeyPrefix
	if err := e.pass(p+".previous.add", e.previousAdd); err != nil {
		return nil, err
	}
	if err := e.pass(p+".next.add", e.nextAdd); err != nil {
		return nil, err
	}
	if err := g.CheckAcyclic(); err != nil {
		return nil, fmt.Errorf("previous.add/next.add metadata: %w", err)
	}
	if !opts.SkipConditional {
		g.Conditional = resolveConditional(g, e.matchers)
	}
	if err := e.pass(p+".previous.remove", e.previousRemove); err != nil {
		return nil, err
	}
	if err := e.removeRegexPass(p + ".previous.remove_regex"); err != nil {
		return nil, err
	}
	if err := e.pass(p+".next.remove", e.nextRemove); err != nil {
		return nil, err
	}
	return e.warnings, nil
}

type editor struct {
	g        *graph.Graph
	opts     Options
	matchers []*matcher // one per worker
	warnings []string
}

// pass visits every concrete node carrying key, in node order.
func (e *editor) pass(key string, visit func(holder int, key, value string) error) error {
	for i, n := range e.g.Nodes() {
		if n.Abstract {
			continue
		}
		value, ok := n.Metadata[key]
		if !ok {
			continue
		}
		if e.opts.RemoveConsumedMetadata {
			delete(n.Metadata, key)
		}
		if err := visit(i, key, value); err != nil {
			return fmt.Errorf("release %s, metadata %s=%q: %w", n.Version, key, value, err)
		}
	}
	return nil
}

// targets resolves the CSV items of a value to node indices. Items are
// given the holder's architecture as build (spec §4.3 "annotate").
func (e *editor) targets(holder int, key, value string) ([]int, error) {
	h := e.g.Node(holder)
	arch, annotated := h.Metadata[graph.KeyArch]
	var out []int
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		w := item
		if annotated {
			v, err := version.Parse(item)
			if err != nil {
				return nil, fmt.Errorf("item %q: %w", item, err)
			}
			w = v.WithBuild(arch).String()
		}
		i, ok := e.g.Lookup(w)
		if !ok {
			e.warnings = append(e.warnings, fmt.Sprintf("release %s: %s names %s, which is not in the graph", h.Version, key, w))
			continue
		}
		out = append(out, i)
	}
	return out, nil
}

func (e *editor) previousAdd(h int, key, value string) error {
	ts, err := e.targets(h, key, value)
	for _, t := range ts {
		if t != h {
			e.g.AddEdge(t, h)
		} else {
			return fmt.Errorf("would add a self-loop")
		}
	}
	return err
}

func (e *editor) nextAdd(h int, key, value string) error {
	ts, err := e.targets(h, key, value)
	for _, t := range ts {
		if t != h {
			e.g.AddEdge(h, t)
		} else {
			return fmt.Errorf("would add a self-loop")
		}
	}
	return err
}

func (e *editor) previousRemove(h int, key, value string) error {
	if strings.TrimSpace(value) == e.opts.RemoveAllValue {
		e.g.RemoveEdgesInto([]int{h}, [][]int{e.g.Parents(h)})
		return nil
	}
	ts, err := e.targets(h, key, value)
	for _, t := range ts {
		e.g.RemoveEdge(t, h)
	}
	return err
}

// removeRegexPass removes, for every holder of key, the edges from each
// source whose full version string (arch suffix included) matches its
// pattern. Checking only the holder's parents is the same as upstream's
// scan of all nodes, since only existing edges go. Holders only lose
// edges into themselves, so their parents are matched on every core
// first (each worker with its own memo) and the edges removed afterwards,
// holder by holder in node order, as pass would.
func (e *editor) removeRegexPass(key string) error {
	var holders []int
	for i, n := range e.g.Nodes() {
		if _, ok := n.Metadata[key]; ok && !n.Abstract {
			holders = append(holders, i)
		}
	}
	sources := make([][]int, len(holders))
	errs := make([]error, len(holders))
	byPattern := samePattern(len(holders), func(k int) string { return e.g.Node(holders[k]).Metadata[key] })
	_ = parallel.Run(context.Background(), len(e.matchers), len(byPattern), func(_ context.Context, w, j int) error {
		for _, k := range byPattern[j] {
			h := holders[k]
			sources[k], errs[k] = e.matchers[w].regexSources(h, e.g.Node(h).Metadata[key])
		}
		return nil
	})
	// Holders up to the first failing one lose their edges, as a pass
	// holder by holder would leave the graph.
	var err error
	done := len(holders)
	for k, h := range holders {
		n := e.g.Node(h)
		if errs[k] != nil {
			err, done = fmt.Errorf("release %s, metadata %s=%q: %w", n.Version, key, n.Metadata[key], errs[k]), k
			break
		}
		if e.opts.RemoveConsumedMetadata {
			delete(n.Metadata, key)
		}
	}
	e.g.RemoveEdgesInto(holders[:done], sources[:done]) // ascending, as Parents
	return err
}

// regexSources returns the parents of h whose version matches pattern.
func (m *matcher) regexSources(h int, pattern string) ([]int, error) {
	parents := m.g.Parents(h)
	if pattern == ".*" {
		return parents, nil
	}
	pieces, err := m.pieces(pattern)
	if err != nil {
		return nil, err
	}
	results := make([][]int8, len(pieces))
	for i, re := range pieces {
		if re.String() == ".*" {
			return parents, nil
		}
		results[i] = m.resultsOf(re)
	}
	kept := parents[:0]
	for _, p := range parents {
		for i, re := range pieces {
			if m.matchWith(results[i], re, p) {
				kept = append(kept, p)
				break
			}
		}
	}
	return kept, nil
}

// pieces compiles pattern and returns the regexps a version must match
// one of to match it: its top-level alternatives (see alternatives),
// each memoised on its own, or pattern itself when it cannot be split.
// An error is pattern's own.
func (m *matcher) pieces(pattern string) ([]*regexp.Regexp, error) {
	if ps, ok := m.split[pattern]; ok {
		return ps, nil
	}
	whole, err := m.compile(pattern)
	if err != nil {
		return nil, err
	}
	ps := []*regexp.Regexp{whole}
	if texts, ok := alternatives(pattern); ok && len(texts) > 1 {
		split := make([]*regexp.Regexp, 0, len(texts))
		for _, t := range texts {
			re, err := m.compile(t)
			if err != nil {
				split = nil // cannot happen for a valid pattern; match it whole
				break
			}
			if !slices.Contains(split, re) {
				split = append(split, re)
			}
		}
		if split != nil {
			ps = split
		}
	}
	m.split[pattern] = ps
	return ps, nil
}

func (e *editor) nextRemove(h int, key, value string) error {
	ts, err := e.targets(h, key, value)
	for _, t := range ts {
		e.g.RemoveEdge(h, t)
	}
	return err
}

// samePattern groups the indices [0, n) by pattern(k), largest group
// first: a worker given one group matches each release against the
// pattern once, where workers given its items in turn would each do it.
// Thousands of holders share a few hundred patterns.
func samePattern(n int, pattern func(k int) string) [][]int {
	index := map[string]int{}
	var groups [][]int
	for k := range n {
		g, ok := index[pattern(k)]
		if !ok {
			g = len(groups)
			index[pattern(k)] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], k)
	}
	slices.SortStableFunc(groups, func(a, b []int) int { return len(b) - len(a) })
	return groups
}

// newMatchers returns one matcher per worker matching patterns in
// parallel. Each keeps a result per node for every pattern it meets, so
// beyond a few workers memory grows faster than the time saved.
func newMatchers(g *graph.Graph) []*matcher {
	ms := make([]*matcher, min(runtime.GOMAXPROCS(0), 4))
	for w := range ms {
		ms[w] = newMatcher(g)
	}
	return ms
}

// matcher memoises regex compilation and per-node match results: thousands
// of holders share a few hundred patterns.
type matcher struct {
	g        *graph.Graph
	compiled map[string]*regexp.Regexp
	split    map[string][]*regexp.Regexp // pattern → pieces
	results  map[*regexp.Regexp][]int8   // by node index: unknown, unmatched, matched
}

func newMatcher(g *graph.Graph) *matcher {
	return &matcher{g: g, compiled: map[string]*regexp.Regexp{}, split: map[string][]*regexp.Regexp{}, results: map[*regexp.Regexp][]int8{}}
}

func (m *matcher) compile(pattern string) (*regexp.Regexp, error) {
	if re, ok := m.compiled[pattern]; ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("regular expression does not compile: %w", err)
	}
	m.compiled[pattern] = re
	return re, nil
}

// resultsOf returns re's memoised results by node (see matchWith).
func (m *matcher) resultsOf(re *regexp.Regexp) []int8 {
	r := m.results[re]
	if r == nil {
		r = make([]int8, m.g.Len())
		m.results[re] = r
	}
	return r
}

// A node's memoised result for a pattern.
const (
	unknown int8 = iota
	unmatched
	matched
)

// matchWith is match with re's results already looked up.
func (m *matcher) matchWith(r []int8, re *regexp.Regexp, node int) bool {
	if r[node] == unknown {
		r[node] = unmatched
		if re.MatchString(m.g.Node(node).Version) {
			r[node] = matched
		}
	}
	return r[node] == matched
}

// memo registers an already compiled declaration pattern, sharing results
// between declarations with the same text.
func (m *matcher) memo(re *regexp.Regexp) *regexp.Regexp {
	if known, ok := m.compiled[re.String()]; ok {
		return known
	}
	m.compiled[re.String()] = re
	return re
}
