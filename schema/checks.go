package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The checks below are the constraints JSON Schema cannot express because
// they relate values in different places of a document. Values of the
// wrong type are skipped: the schema reports them.

// checkGraph: edge indices name nodes, no self-loops or cycles, node
// versions are unique, conditional edges name existing nodes, a (from, to)
// pair is in at most one conditional entry, and risk names are unique
// within an entry.
func checkGraph(doc any) []Problem {
	g, _ := doc.(map[string]any)
	if g == nil {
		return nil
	}
	var ps []Problem
	nodes, _ := g["nodes"].([]any)
	versions := map[string]int{}
	for i, n := range nodes {
		node, _ := n.(map[string]any)
		v, ok := node["version"].(string)
		if !ok || v == "" {
			continue
		}
		if j, dup := versions[v]; dup {
			ps = append(ps, Problem{Pointer: fmt.Sprintf("/nodes/%d/version", i),
				Message: fmt.Sprintf("version %q is also the version of /nodes/%d: versions must be unique", v, j)})
			continue
		}
		versions[v] = i
	}

	edges, _ := g["edges"].([]any)
	out := make([][]int, len(nodes))     // adjacency, for the cycle check
	outEdge := make([][]int, len(nodes)) // edge index of each adjacency entry
	for k, e := range edges {
		pair, _ := e.([]any)
		if len(pair) != 2 {
			continue
		}
		var ij [2]int
		valid := true
		for side, x := range pair {
			if n, ok := x.(json.Number); ok && strings.ContainsAny(string(n), ".eE") {
				ps = append(ps, Problem{Pointer: fmt.Sprintf("/edges/%d/%d", k, side),
					Message: fmt.Sprintf("node index %s must be written as a plain integer (clusters decode edges as []int)", n)})
			}
			i, ok := nodeIndex(x)
			if !ok {
				valid = false
				continue
			}
			if i >= int64(len(nodes)) {
				ps = append(ps, Problem{Pointer: fmt.Sprintf("/edges/%d/%d", k, side),
					Message: fmt.Sprintf("node index %d is out of range: the graph has %d nodes", i, len(nodes))})
				valid = false
				continue
			}
			ij[side] = int(i)
		}
		if !valid {
			continue
		}
		if ij[0] == ij[1] {
			ps = append(ps, Problem{Pointer: fmt.Sprintf("/edges/%d", k),
				Message: fmt.Sprintf("self-loop on %s: the graph must be acyclic", versionAt(nodes, ij[0]))})
			continue
		}
		out[ij[0]] = append(out[ij[0]], ij[1])
		outEdge[ij[0]] = append(outEdge[ij[0]], k)
	}
	if p, ok := findCycle(nodes, out, outEdge); ok {
		ps = append(ps, p)
	}

	conds, _ := g["conditionalEdges"].([]any)
	pairs := map[[2]string]string{}
	for ci, c := range conds {
		ce, _ := c.(map[string]any)
		ces, _ := ce["edges"].([]any)
		for ei, e := range ces {
			ref, _ := e.(map[string]any)
			from, okFrom := ref["from"].(string)
			to, okTo := ref["to"].(string)
			at := fmt.Sprintf("/conditionalEdges/%d/edges/%d", ci, ei)
			for _, end := range []struct {
				key, v string
				ok     bool
			}{{"from", from, okFrom}, {"to", to, okTo}} {
				if _, found := versions[end.v]; end.ok && !found {
					ps = append(ps, Problem{Pointer: at + "/" + end.key,
						Message: fmt.Sprintf("no node has version %q (a cluster at the source rejects the whole response)", end.v)})
				}
			}
			if !okFrom || !okTo {
				continue
			}
			key := [2]string{from, to}
			if prev, dup := pairs[key]; dup {
				ps = append(ps, Problem{Pointer: at,
					Message: fmt.Sprintf("conditional edge %s -> %s is also at %s: clusters drop every conditional update to a target listed twice; merge the risks into one entry", from, to, prev)})
				continue
			}
			pairs[key] = at
		}
		risks, _ := ce["risks"].([]any)
		names := map[string]int{}
		for ri, r := range risks {
			risk, _ := r.(map[string]any)
			name, ok := risk["name"].(string)
			if !ok || name == "" {
				continue
			}
			if j, dup := names[name]; dup {
				ps = append(ps, Problem{Pointer: fmt.Sprintf("/conditionalEdges/%d/risks/%d/name", ci, ri),
					Message: fmt.Sprintf("risk %q is also /conditionalEdges/%d/risks/%d: names must be unique within an entry", name, ci, j)})
				continue
			}
			names[name] = ri
		}
	}
	return ps
}

// nodeIndex reads a non-negative integer node index.
func nodeIndex(x any) (int64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		switch v := x.(type) {
		case int64:
			return v, v >= 0
		case uint64:
			return int64(min(v, 1<<62)), true
		}
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != float64(int64(f)) {
			return 0, false
		}
		i = int64(f)
	}
	return i, i >= 0
}

func versionAt(nodes []any, i int) string {
	node, _ := nodes[i].(map[string]any)
	if v, ok := node["version"].(string); ok {
		return strconv.Quote(v)
	}
	return fmt.Sprintf("/nodes/%d", i)
}

// findCycle reports the first cycle found by an iterative depth-first
// search, at the edge that closes it.
func findCycle(nodes []any, out, outEdge [][]int) (Problem, bool) {
	const (
		white = iota
		grey
		black
	)
	color := make([]byte, len(out))
	type frame struct{ n, next int }
	for start := range out {
		if color[start] != white {
			continue
		}
		stack := []frame{{start, 0}}
		color[start] = grey
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == len(out[f.n]) {
				color[f.n] = black
				stack = stack[:len(stack)-1]
				continue
			}
			t, k := out[f.n][f.next], outEdge[f.n][f.next]
			f.next++
			switch color[t] {
			case grey:
				var path []string
				for i := range stack {
					if stack[i].n == t || len(path) > 0 {
						path = append(path, versionAt(nodes, stack[i].n))
					}
				}
				path = append(path, versionAt(nodes, t))
				return Problem{Pointer: fmt.Sprintf("/edges/%d", k),
					Message: "edges form a cycle: " + strings.Join(path, " -> ")}, true
			case white:
				color[t] = grey
				stack = append(stack, frame{t, 0})
			}
		}
	}
	return Problem{}, false
}

// checkIndex: every listed graph's file, channel and arch are listed.
func checkIndex(doc any) []Problem {
	m, _ := doc.(map[string]any)
	if m == nil {
		return nil
	}
	files, okFiles := m["files"].(map[string]any)
	ps := checkGraphList(m, func(i int, path string) []Problem {
		if _, listed := files[path]; okFiles && !listed {
			return []Problem{{Pointer: fmt.Sprintf("/graphs/%d/path", i), Message: fmt.Sprintf("%s is not in files", path)}}
		}
		return nil
	})
	return append(ps, checkCatalogList(m, files, okFiles)...)
}

// checkCatalogList: catalog names are unique, each catalog's summary is
// in files and under the catalog's own directory, and it lists as many
// packages as it counts.
func checkCatalogList(m, files map[string]any, okFiles bool) []Problem {
	cats, _ := m["catalogs"].([]any)
	var ps []Problem
	seen := map[string]int{}
	for i, x := range cats {
		c, _ := x.(map[string]any)
		at := fmt.Sprintf("/catalogs/%d", i)
		name, okName := c["name"].(string)
		if okName {
			if j, dup := seen[name]; dup {
				ps = append(ps, Problem{Pointer: at + "/name", Message: fmt.Sprintf("catalog %q is also /catalogs/%d: names must be unique", name, j)})
			}
			seen[name] = i
		}
		if p, ok := c["path"].(string); ok {
			if _, listed := files[p]; okFiles && !listed {
				ps = append(ps, Problem{Pointer: at + "/path", Message: fmt.Sprintf("%s is not in files", p)})
			}
			if okName && p != "operators/"+name+"/catalog.json" {
				ps = append(ps, Problem{Pointer: at + "/path", Message: fmt.Sprintf("%s is not operators/%s/catalog.json", p, name)})
			}
		}
		pkgs, okPkgs := c["packages"].([]any)
		counts, _ := c["counts"].(map[string]any)
		if n, ok := counts["packages"].(json.Number); ok && okPkgs && string(n) != strconv.Itoa(len(pkgs)) {
			ps = append(ps, Problem{Pointer: at + "/counts/packages", Message: fmt.Sprintf("%s packages counted, %d listed", n, len(pkgs))})
		}
	}
	return ps
}

// checkViewerGraphs: every listed graph's channel and arch are listed
// (the viewer's pickers offer only those).
func checkViewerGraphs(doc any) []Problem {
	m, _ := doc.(map[string]any)
	if m == nil {
		return nil
	}
	return checkGraphList(m, nil)
}

// checkGraphList checks that each of m's graphs has its channel in
// channels and its arch in arches, and passes each graph's path to
// checkPath when not nil.
func checkGraphList(m map[string]any, checkPath func(i int, path string) []Problem) []Problem {
	set := func(key string) (map[string]bool, bool) {
		arr, ok := m[key].([]any)
		s := map[string]bool{}
		for _, x := range arr {
			if v, ok := x.(string); ok {
				s[v] = true
			}
		}
		return s, ok
	}
	channels, okChannels := set("channels")
	arches, okArches := set("arches")
	graphs, _ := m["graphs"].([]any)
	var ps []Problem
	for i, x := range graphs {
		g, _ := x.(map[string]any)
		at := fmt.Sprintf("/graphs/%d", i)
		if p, ok := g["path"].(string); ok && checkPath != nil {
			ps = append(ps, checkPath(i, p)...)
		}
		if c, ok := g["channel"].(string); ok && okChannels && !channels[c] {
			ps = append(ps, Problem{Pointer: at + "/channel", Message: fmt.Sprintf("channel %q is not in channels", c)})
		}
		if a, ok := g["arch"].(string); ok && okArches && !arches[a] {
			ps = append(ps, Problem{Pointer: at + "/arch", Message: fmt.Sprintf("arch %q is not in arches", a)})
		}
	}
	return ps
}

// checkOperatorChannelGraph: node names are unique, the head (when set)
// and every edge's target are nodes of the channel (an edge's source may
// be outside it), and skipRangeFrom's spans index nodes.
func checkOperatorChannelGraph(doc any) []Problem {
	g, _ := doc.(map[string]any)
	if g == nil {
		return nil
	}
	var ps []Problem
	nodes, _ := g["nodes"].([]any)
	names := map[string]int{}
	for i, x := range nodes {
		n, _ := x.(map[string]any)
		name, ok := n["name"].(string)
		if !ok {
			continue
		}
		if j, dup := names[name]; dup {
			ps = append(ps, Problem{Pointer: fmt.Sprintf("/nodes/%d/name", i), Message: fmt.Sprintf("%q is also /nodes/%d: names must be unique", name, j)})
			continue
		}
		names[name] = i
	}
	if h, ok := g["head"].(string); ok && h != "" {
		if _, found := names[h]; !found {
			ps = append(ps, Problem{Pointer: "/head", Message: fmt.Sprintf("head %q is not a node", h)})
		}
	}
	edges, _ := g["edges"].([]any)
	for i, x := range edges {
		e, _ := x.(map[string]any)
		if to, ok := e["to"].(string); ok {
			if _, found := names[to]; !found {
				ps = append(ps, Problem{Pointer: fmt.Sprintf("/edges/%d/to", i), Message: fmt.Sprintf("%q is not a node of the channel", to)})
			}
		}
	}
	for i, x := range nodes {
		n, _ := x.(map[string]any)
		spans, _ := n["skipRangeFrom"].([]any)
		ps = append(ps, checkSpans(fmt.Sprintf("/nodes/%d/skipRangeFrom", i), spans, len(nodes))...)
	}
	return ps
}

// checkOperatorPackageGraph: the spans of every node's skipRanges index
// nodes.
func checkOperatorPackageGraph(doc any) []Problem {
	g, _ := doc.(map[string]any)
	if g == nil {
		return nil
	}
	var ps []Problem
	nodes, _ := g["nodes"].([]any)
	for i, x := range nodes {
		n, _ := x.(map[string]any)
		ranges, _ := n["skipRanges"].([]any)
		for j, y := range ranges {
			r, _ := y.(map[string]any)
			spans, _ := r["from"].([]any)
			ps = append(ps, checkSpans(fmt.Sprintf("/nodes/%d/skipRanges/%d/from", i, j), spans, len(nodes))...)
		}
	}
	return ps
}

// checkSpans: each span is [first, last] with first ≤ last < n, each
// after the one before (ascending, apart). Spans the schema rejects are
// left to it.
func checkSpans(at string, spans []any, n int) []Problem {
	var ps []Problem
	prev := int64(-1)
	for k, x := range spans {
		s, _ := x.([]any)
		if len(s) != 2 {
			continue
		}
		na, okA := s[0].(json.Number)
		nb, okB := s[1].(json.Number)
		if !okA || !okB {
			continue
		}
		a, errA := na.Int64()
		b, errB := nb.Int64()
		if errA != nil || errB != nil {
			continue
		}
		if a > b || b >= int64(n) || a <= prev {
			ps = append(ps, Problem{Pointer: fmt.Sprintf("%s/%d", at, k), Message: fmt.Sprintf("span [%d, %d]: want first ≤ last < %d (the nodes), after the span before", a, b, n)})
		}
		prev = b
	}
	return ps
}
