package model

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// v0SetPaths memoizes V0Set.ResolvePath over the entries of one channel
// for their next/ files (BoundedViewInSets), as V0Paths does without
// dependencies: walking each entry's path whole made a replaces chain of
// n entries cost n²/2 resolutions.
//
// A resolution depends only on the namespace's Subscriptions (pathStep),
// so the states of ResolvePath's walks form a functional graph, and from
// a state K the walk is the same whichever entry it started from —
// except for what the walk remembers: it stops with an error when a
// bundle of the query's Subscription or a state (v0StateKey) comes
// again, and after 64 + 4 × the channel's length resolutions. A node
// records, for a state whose walk ends without such an error, the hop
// made from it, the next state, and the hops, last hop, resolutions and
// end from it. An entry's walk resolves until it reaches a node, and
// joins it when the rest of the walk cannot meet what the walk
// remembers: no state after the node has a Subscription's bundle or a
// v0StateKey of the states before it (found by the nodes of that bundle
// or key, each asked whether it lies on the node's path, by binary
// lifting), and the resolutions stay within the bound. Otherwise, or
// when the walk ends in a loop or at the bound, or the cut of the file
// needs more hops than it lists, the entry's path is ResolvePath's
// (walked whole). So each state is resolved once on a channel whose
// paths join (a replaces chain: every walk joins after its first
// resolution), and an entry costs O(its first resolutions + FileListMax
// + log n).
//
// Like V0Paths, not safe for concurrent use; reset when asked for
// another set or catalog.
type v0SetPaths struct {
	set     *V0Set
	catalog string
	nodes   map[string]*v0SetNode   // full state (v0FullKey) → node
	byMain  map[string][]*v0SetNode // the query's Subscription's bundle → nodes
	byState map[string][]*v0SetNode // v0StateKey → nodes
	// answered and walked count the queries the memo answered and those
	// it left to ResolvePath (for tests).
	answered, walked int
}

// v0SetNode is a state whose walk ends without a loop: hop is the hop
// made from it (nil: none), next the state after it (nil: the walk ends
// here, as end says), up[k] the state 2^k resolutions later.
type v0SetNode struct {
	main  string // the query's Subscription's installed bundle
	hop   *Hop
	next  *v0SetNode
	up    []*v0SetNode
	depth int    // resolutions to the last state
	hops  int    // hops from here to the end
	last  string // the last of them ("": none)
	steps int    // resolutions from here, the last included
	end   *v0SetEnd
}

// v0SetEnd is how a walk ends: the last resolution's error (without the
// "at <last hop>" ResolvePath puts before it), held, or stranded.
type v0SetEnd struct {
	err      string
	held     *V0Held
	stranded *V0Stranded
}

// v0FullKey names the Subscriptions in order, every field: what a
// resolution depends on.
func v0FullKey(subs []V0Subscription) string {
	var b strings.Builder
	for _, s := range subs {
		for _, f := range []string{s.Catalog, s.Package, s.Channel, s.Installed, s.StartingCSV} {
			b.WriteString(strconv.Itoa(len(f)))
			b.WriteByte(':')
			b.WriteString(f)
		}
	}
	return b.String()
}

// on says whether y is a state strictly after x on x's walk.
func (x *v0SetNode) on(y *v0SetNode) bool {
	d := x.depth - y.depth
	if d <= 0 {
		return false
	}
	for k := 0; d > 0; k++ {
		if d&1 == 1 {
			if k >= len(x.up) {
				return false
			}
			x = x.up[k]
		}
		d >>= 1
	}
	return x == y
}

// link sets n's lifting pointers from n.next (whose are set).
func (n *v0SetNode) link() {
	if n.next == nil {
		return
	}
	n.up = make([]*v0SetNode, 0, bits.Len(uint(n.depth)))
	n.up = append(n.up, n.next)
	for k := 0; k < len(n.up) && k < len(n.up[k].up); k++ {
		n.up = append(n.up, n.up[k].up[k])
	}
}

// bounded returns ResolvePath(q).V0Result cut as InstalledView.Bounded
// cuts it for a next/ file of ch, and false when the memo cannot answer
// (the caller walks it whole).
func (m *v0SetPaths) bounded(q V0SetQuery, ch *Channel) (V0Result, bool) {
	r, ok := m.boundedMemo(q, ch)
	if ok {
		m.answered++
	} else {
		m.walked++
	}
	return r, ok
}

func (m *v0SetPaths) boundedMemo(q V0SetQuery, ch *Channel) (V0Result, bool) {
	if m.nodes == nil {
		m.nodes, m.byMain, m.byState = map[string]*v0SetNode{}, map[string][]*v0SetNode{}, map[string][]*v0SetNode{}
	}
	mem := m.set.Member(q.Catalog)
	if mem == nil || mem.Catalog == nil || q.StartingCSV != "" {
		return V0Result{}, false
	}
	pkg := mem.Catalog.Package(q.Package)
	if pkg == nil {
		return V0Result{}, false
	}
	order, err := pkg.v0Order(V0Query{Channel: q.Channel})
	if err != nil || len(order) == 0 {
		return V0Result{}, false
	}
	head := order[0].Name
	bound := v0PathResolutionsMin + 4*len(order)

	// The walk before it joins a node: its states, their steps, and what
	// it remembers.
	type walked struct {
		subs []V0Subscription
		key  string
		t    v0PathStep
	}
	var prefix []walked
	var hops []Hop
	subs := []V0Subscription{{Catalog: q.Catalog, Package: q.Package, Channel: q.Channel, Installed: q.Installed}}
	seenMain := map[string]bool{}
	if q.Installed != "" {
		seenMain[q.Installed] = true
	}
	seenState := map[string]bool{v0StateKey(subs): true}
	var join *v0SetNode
	var end *v0SetEnd
	for {
		key := v0FullKey(subs)
		if n := m.nodes[key]; n != nil {
			if !m.joinable(n, seenMain, seenState) || len(prefix)+n.steps > bound {
				return V0Result{}, false
			}
			join = n
			break
		}
		if len(prefix) == bound {
			return V0Result{}, false // ResolvePath's "more than … resolutions"
		}
		t := m.set.pathStep(subs)
		prefix = append(prefix, walked{subs: subs, key: key, t: t})
		if t.res.Error != "" {
			end = &v0SetEnd{err: t.res.Error}
			break
		}
		if t.hop != nil {
			if seenMain[t.hop.Name] {
				return V0Result{}, false // a loop
			}
			seenMain[t.hop.Name] = true
			hops = append(hops, *t.hop)
		}
		if !t.moved {
			end = &v0SetEnd{held: t.held}
			if t.held == nil {
				end.stranded = pkg.v0Stranded(q.Channel, subs[0].Installed)
			}
			break
		}
		subs = t.subs
		sk := v0StateKey(subs)
		if seenState[sk] {
			return V0Result{}, false // a loop
		}
		seenState[sk] = true
	}

	// Record the walk's states, last first.
	next := join
	for i := len(prefix) - 1; i >= 0; i-- {
		w := prefix[i]
		n := m.nodes[w.key]
		if n == nil {
			n = &v0SetNode{main: w.subs[0].Installed, hop: w.t.hop, next: next, steps: 1, end: end}
			if next != nil {
				n.depth, n.hops, n.last, n.steps, n.end = next.depth+1, next.hops, next.last, next.steps+1, next.end
			}
			if n.hops == 0 && n.hop != nil {
				n.last = n.hop.Name
			}
			if n.hop != nil {
				n.hops++
			}
			n.link()
			m.nodes[w.key] = n
			m.byMain[n.main] = append(m.byMain[n.main], n)
			sk := v0StateKey(w.subs)
			m.byState[sk] = append(m.byState[sk], n)
		}
		next = n
	}
	if join != nil {
		end = join.end
	}

	// The answer: the first hops (the walk's, then the nodes'), their
	// number, the last one and the end.
	total, last := len(hops), ""
	if len(hops) > 0 {
		last = hops[len(hops)-1].Name
	}
	if join != nil {
		total += join.hops
		if join.hops > 0 {
			last = join.last
		}
		for n := join; n != nil && len(hops) <= FileListMax; n = n.next {
			if n.hop != nil {
				hops = append(hops, *n.hop)
			}
		}
	}
	r := V0Result{Semantics: SemanticsV0Set, Channel: q.Channel, Head: head, PathToHead: []Hop{}, Stranded: end.stranded}
	if end.held != nil {
		h := *end.held // Bounded cuts it
		r.Held = &h
	}
	if end.err != "" {
		r.Error = end.err
		if last != "" {
			r.Error = fmt.Sprintf("at %s: %s", last, end.err)
		}
	}
	if total > FileListMax {
		k := FileListMax
		for ; k > 0; k-- {
			if e := ch.entryByName[hops[k-1].Name]; e != nil && e.Bundle != nil && hops[k-1].Channel == ch.Name {
				break
			}
		}
		if k == 0 {
			return V0Result{}, false // the file lists the path whole
		}
		hops, r.PathToHeadTotal = hops[:k], total
	}
	for _, h := range hops {
		h.Via = slices.Clone(h.Via) // withoutRanges clears them
		r.PathToHead = append(r.PathToHead, h)
	}
	if total > 0 {
		r.Next = &r.PathToHead[0]
		r.ReachesHead = last == head
	} else {
		r.ReachesHead = q.Installed != "" && q.Installed == head
	}
	return r, true
}

// joinable says whether the walk that reached n, remembering seenMain
// and seenState, goes on as n's walk: no state after n has a remembered
// bundle or v0StateKey. n's own are what n's walk starts with: a state
// after n with n's bundle follows n without a hop (with a hop n's walk
// would have stopped at a loop), so it is no loop.
func (m *v0SetPaths) joinable(n *v0SetNode, seenMain, seenState map[string]bool) bool {
	for b := range seenMain {
		if b == n.main {
			continue
		}
		for _, y := range m.byMain[b] {
			if n.on(y) {
				return false
			}
		}
	}
	for k := range seenState {
		for _, y := range m.byState[k] {
			if n.on(y) {
				return false
			}
		}
	}
	return true
}
