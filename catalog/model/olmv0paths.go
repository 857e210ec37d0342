package model

// V0Paths is OLM v0's path (ResolveV0) from every entry of one channel,
// memoized so that a channel's next/ files cost time linear in what
// they list, not in the n²/2 hops of a long replaces chain's paths.
//
// ResolveV0 walks from the installed bundle by single hops, and a hop's
// pick depends only on the channel's order and the bundle it starts
// from (its name and version): the hops form a functional graph over
// the order's entries. So path(B) = next(B) + path(next(B)), and
// where the walk enters a loop (a bundle reached again) the error names
// the loop's first bundle, the same from B as from next(B). V0Paths
// computes every entry's next once, then each entry's number of hops,
// last hop and end (stranded or loop) in one pass over that graph; a
// file's first FileListMax hops are then read by following next.
// Bounded(e) equals ResolveV0 for e's bundle cut by InstalledView.Bounded,
// byte for byte (TestV0PathsMatchResolveV0).
//
// A V0Paths is not safe for concurrent use (it builds on first use and
// reuses a buffer); the next/ builder uses one per channel task, whose
// entries it renders in turn.
type V0Paths struct {
	ch    *Channel
	order []*Entry
	err   error
	pos   map[*Entry]int
	edges *v0EdgeIndex
	built bool
	// per position of order:
	step  []v0Step
	total []int        // hops of the path from the entry
	last  []int        // position of its last hop (-1: no hop)
	end   []*v0PathEnd // how the path stops
	head  string       // order[0]'s name
	deps  *bool        // whether the package declares OLM v0 dependencies, once asked
	set   *v0SetPaths  // the memo of V0Set.ResolvePath (BoundedViewInSets)
}

// v0Step is one resolution from an entry: the picked entry (next, -1
// for no update), the edges allowing it, and the first Prohibited
// candidate passed over before it.
type v0Step struct {
	next   int
	via    []Via
	passed *Entry
}

// v0PathEnd is why a path stops: at a bundle with no update (Stranded
// when a Prohibited candidate was passed over) or at a loop (Error).
type v0PathEnd struct {
	stranded *V0Stranded
	err      string
}

// V0Paths returns the memo of OLM v0's paths from the channel's entries.
func (c *Channel) V0Paths() *V0Paths {
	return &V0Paths{ch: c}
}

func (x *V0Paths) build() {
	x.built = true
	x.order, x.err = x.ch.Package.v0Order(V0Query{Channel: x.ch.Name})
	if x.err != nil || len(x.order) == 0 {
		return
	}
	n := len(x.order)
	x.head = x.order[0].Name
	x.pos = make(map[*Entry]int, n)
	for i, e := range x.order {
		x.pos[e] = i
	}
	x.edges = newV0EdgeIndex(x.order)
	x.step = make([]v0Step, n)
	for i, e := range x.order {
		x.step[i] = x.stepFrom(newV0Installed(Installed{Name: e.Name, Version: hop(e, nil).Version}))
	}
	x.total, x.last, x.end = make([]int, n), make([]int, n), make([]*v0PathEnd, n)
	const (
		unseen = iota
		onStack
		done
	)
	state := make([]uint8, n)
	var stack []int
	for i := range n {
		if state[i] != unseen {
			continue
		}
		j := i
		for state[j] == unseen {
			state[j] = onStack
			stack = append(stack, j)
			if x.step[j].next < 0 {
				break
			}
			j = x.step[j].next
		}
		switch {
		case state[j] == onStack && x.step[j].next < 0:
			// j ends the path: no update from it.
			stack = stack[:len(stack)-1]
			state[j] = done
			x.total[j], x.last[j] = 0, -1
			end := &v0PathEnd{}
			if p := x.step[j].passed; p != nil {
				end.stranded = newV0Stranded(x.order[j].Name, p.Name)
			}
			x.end[j] = end
		case state[j] == onStack:
			// A loop: stack from j's place to its top. From a bundle of
			// the loop the walk goes round once and stops before
			// reaching it again.
			k := len(stack) - 1
			for stack[k] != j {
				k--
			}
			loop := stack[k:]
			for li, c := range loop {
				pred := loop[(li+len(loop)-1)%len(loop)]
				x.total[c], x.last[c] = len(loop)-1, pred
				x.end[c] = &v0PathEnd{err: "OLM v0 updates loop: " + x.order[c].Name + " is reached again"}
				state[c] = done
			}
			stack = stack[:k]
		}
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			nx := x.step[c].next
			x.total[c] = 1 + x.total[nx]
			x.last[c] = x.last[nx]
			if x.total[nx] == 0 {
				x.last[c] = nx
			}
			x.end[c] = x.end[nx]
			state[c] = done
		}
	}
}

// stepFrom is one iteration of ResolveV0's walk from inst.
func (x *V0Paths) stepFrom(inst v0Installed) v0Step {
	var passed *Entry
	for _, i := range x.edges.from(inst) {
		e := x.order[i]
		via := v0Edges(e, inst)
		if len(via) == 0 {
			continue
		}
		if e.prohibited() {
			if passed == nil {
				passed = e
			}
			continue
		}
		if e.Name == inst.name {
			return v0Step{next: -1, passed: passed}
		}
		return v0Step{next: i, via: via, passed: passed}
	}
	return v0Step{next: -1, passed: passed}
}

// Bounded is ResolveV0 from e's bundle on e's channel, cut as
// InstalledView.Bounded cuts it: at most FileListMax hops (more only
// when none of them has a bundle) and PathToHeadTotal when cut. e must
// be an entry of the channel, with a bundle.
func (x *V0Paths) Bounded(e *Entry) V0Result {
	if !x.built {
		x.build()
	}
	in := e.Bundle.InstalledV0()
	direct := func() V0Result {
		v := InstalledView{OLMV0: x.ch.Package.ResolveV0(V0Query{Channel: x.ch.Name, Installed: &in})}
		v.Bounded(x.ch)
		return v.OLMV0
	}
	if x.err != nil || len(x.order) == 0 {
		return direct()
	}
	r := V0Result{Semantics: SemanticsV0, Channel: x.ch.Name, Head: x.head, PathToHead: []Hop{}}
	// The first resolution, from the installed bundle itself: an entry
	// the order leaves out (a skipped one) is not a node of the graph.
	// From an entry of the order its own count, last hop and end (on a
	// loop they are not next's: the walk stops before B comes round);
	// from one the order leaves out (a skipped entry, not a node of the
	// graph, its name no hop's) the first resolution, then next's.
	var first v0Step
	var total, lastPos int
	var end *v0PathEnd
	if i, onOrder := x.pos[e]; onOrder {
		first, total, lastPos, end = x.step[i], x.total[i], x.last[i], x.end[i]
	} else if x.ch.entryByName[e.Name] == e {
		first = x.stepFrom(newV0Installed(in))
		if first.next >= 0 {
			nx := first.next
			total, lastPos, end = 1+x.total[nx], x.last[nx], x.end[nx]
			if x.total[nx] == 0 {
				lastPos = nx
			}
		}
	} else {
		return direct() // not an entry of this channel
	}
	if first.next < 0 {
		if first.passed != nil {
			r.Stranded = newV0Stranded(in.Name, first.passed.Name)
		}
		r.ReachesHead = in.Name == r.Head
		return r
	}
	nx := first.next
	if total > len(x.order) {
		return direct() // cannot happen: every hop is a distinct entry of the order
	}
	if total < len(x.order) {
		r.Stranded, r.Error = end.stranded, end.err
	} // else ResolveV0's walk stops at its bound of len(order) resolutions, before asking why
	want := total
	if total > FileListMax {
		want = FileListMax
	}
	hops := make([]Hop, 0, want)
	at, via := nx, first.via
	for len(hops) < want {
		hops = append(hops, hop(x.order[at], append([]Via(nil), via...)))
		via = x.step[at].via
		at = x.step[at].next
	}
	if total > FileListMax {
		cut := 0
		for k := FileListMax; k > 0; k-- {
			if o := x.ch.entryByName[hops[k-1].Name]; o != nil && o.Bundle != nil && hops[k-1].Channel == x.ch.Name {
				cut = k
				break
			}
		}
		if cut == 0 {
			return direct() // no hop with a bundle among the first ones: the path is listed whole
		}
		hops = hops[:cut:cut]
		r.PathToHeadTotal = total
	}
	r.PathToHead = hops
	r.Next = &r.PathToHead[0]
	r.ReachesHead = x.order[lastPos].Name == r.Head
	return r
}
