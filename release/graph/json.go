package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/upgraph/upgraph/internal/clip"
	"reflect"
	"slices"
	"sort"

	"github.com/upgraph/upgraph/internal/jsonw"
)

// wireGraph is the graph-builder JSON format (spec §7.1).
type wireGraph struct {
	Nodes            []wireNode        `json:"nodes"`
	Edges            []json.RawMessage `json:"edges"`
	ConditionalEdges []wireConditional `json:"conditionalEdges"`
}

type wireNode struct {
	Version  *string           `json:"version"`
	Payload  *string           `json:"payload"`
	Metadata map[string]string `json:"metadata"`
}

type wireConditional struct {
	Edges []EdgeRef `json:"edges"`
	Risks []struct {
		URL           string `json:"url"`
		Name          string `json:"name"`
		Message       string `json:"message"`
		MatchingRules []struct {
			Type   string `json:"type"`
			PromQL struct {
				PromQL string `json:"promql"`
			} `json:"promql"`
		} `json:"matchingRules"`
	} `json:"risks"`
}

// UnmarshalJSON for EdgeRef accepts {"from","to"}.
func (e *EdgeRef) UnmarshalJSON(b []byte) error {
	var w struct{ From, To string }
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.From, e.To = w.From, w.To
	return nil
}

// Decode reads a graph in graph-builder format (spec §7.3). name is used in
// error messages, which carry the line of the problem where JSON allows it.
func Decode(name string, data []byte) (*Graph, error) {
	var w wireGraph
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", name, JSONPosition(data, err))
	}
	if err := checkTopLevelKeys(data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if w.Nodes == nil || w.Edges == nil {
		return nil, fmt.Errorf("%s: graph needs both \"nodes\" and \"edges\"", name)
	}
	g := New()
	for i, wn := range w.Nodes {
		if wn.Version == nil || *wn.Version == "" {
			return nil, fmt.Errorf("%s: nodes[%d]: missing or empty version", name, i)
		}
		n := &Node{Version: *wn.Version}
		// A node lacking payload or metadata is abstract, as upstream decodes it.
		if wn.Payload != nil && wn.Metadata != nil {
			n.Payload, n.Metadata = *wn.Payload, wn.Metadata
		} else {
			n.Abstract = true
		}
		if _, err := g.AddNode(n); err != nil {
			return nil, fmt.Errorf("%s: nodes[%d]: %w", name, i, err)
		}
	}
	for i, raw := range w.Edges {
		var pair []int
		if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("%s: edges[%d]: want [from, to] node indices, got %s", name, i, clip.Text(string(raw)))
		}
		if pair[0] < 0 || pair[0] >= g.Len() || pair[1] < 0 || pair[1] >= g.Len() {
			return nil, fmt.Errorf("%s: edges[%d]: index out of range in %s (%d nodes)", name, i, clip.Text(string(raw)), g.Len())
		}
		if pair[0] == pair[1] {
			return nil, fmt.Errorf("%s: edges[%d]: self-loop on %s", name, i, g.Node(pair[0]).Version)
		}
		g.AddEdge(pair[0], pair[1])
	}
	if err := g.CheckAcyclic(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, wc := range w.ConditionalEdges {
		ce := ConditionalEdge{Edges: wc.Edges}
		for _, wr := range wc.Risks {
			r := Risk{URL: wr.URL, Name: wr.Name, Message: wr.Message}
			for _, mr := range wr.MatchingRules {
				r.MatchingRules = append(r.MatchingRules, MatchingRule{Type: mr.Type, PromQL: mr.PromQL.PromQL})
			}
			ce.Risks = append(ce.Risks, r)
		}
		g.Conditional = append(g.Conditional, ce)
	}
	return g, nil
}

// checkTopLevelKeys rejects unknown and repeated top-level keys, which
// encoding/json would ignore or let the last one win (spec §7.3); unknown
// keys deeper down are ignored, as upstream does.
func checkTopLevelKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '{', already validated
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		line, _ := LineCol(data, off)
		switch {
		case key != "nodes" && key != "edges" && key != "conditionalEdges":
			return fmt.Errorf("line %d: unknown top-level key %q", line, key)
		case seen[key]:
			return fmt.Errorf("line %d: duplicate top-level key %q", line, key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// JSONPosition adds the line and column of the offending byte to JSON
// errors that carry an offset, so a user can find the problem in the file.
func JSONPosition(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	// Offset counts the bytes read, including the offending one.
	line, col := LineCol(data, max(0, off-1))
	if te != nil {
		// encoding/json names Go types ("cannot unmarshal array into Go
		// value of type graph.wireGraph"); the user wrote JSON.
		return fmt.Errorf("line %d, column %d: %s", line, col, typeProblem(te))
	}
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// typeProblem says in JSON's terms what an UnmarshalTypeError found: where
// (the field path, if any), what was wanted and what was there.
func typeProblem(te *json.UnmarshalTypeError) string {
	where := ""
	if te.Field != "" {
		where = te.Field + ": "
	}
	return fmt.Sprintf("%swant %s, got %s", where, jsonKind(te.Type), te.Value)
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return "a string"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a JSON value"
}

// LineCol converts a byte offset into 1-based line and column numbers.
func LineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Encode writes the graph in graph-builder format with nodes in the given
// order, a permutation of the node indices (nil: insertion order).
// Metadata keys are sorted.
func (g *Graph) Encode(order []int) []byte {
	return bytes.Join(g.EncodeParts(order), nil)
}

// EncodeParts returns Encode(order) in consecutive pieces, the nodes and
// the edges encoded concurrently, for a caller that only streams the
// encoding (into a digest) and has the graph's encoding on its critical
// path.
func (g *Graph) EncodeParts(order []int) [][]byte {
	if order == nil {
		order = make([]int, g.Len())
		for i := range order {
			order[i] = i
		}
	}
	var (
		nodes []byte
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		nodes = g.appendNodes(make([]byte, 0, 1024*len(order)), order)
	}()
	edges := g.appendEdges(make([]byte, 0, 12*g.EdgeCount()), order)
	<-done
	return [][]byte{
		[]byte(`{"nodes":[`), nodes,
		[]byte(`],"edges":[`), edges,
		AppendConditional([]byte(`],"conditionalEdges":`), g.Conditional), []byte("}"),
	}
}

func (g *Graph) appendNodes(b []byte, order []int) []byte {
	for p, i := range order {
		if p > 0 {
			b = append(b, ',')
		}
		b = AppendNode(b, g.nodes[i].Version, g.nodes[i])
	}
	return b
}

// appendEdges appends the edges by source position, then target position.
func (g *Graph) appendEdges(b []byte, order []int) []byte {
	pos := make([]int32, g.Len())
	for p, i := range order {
		pos[i] = int32(p)
	}
	// Each source's targets by position, without sorting them: visiting
	// the targets in output order appends each to its sources' lists in
	// order (the out-lists are sorted by node index, not by position).
	start := make([]int, len(order)+1)
	for p, i := range order {
		start[p+1] = start[p] + len(g.out[i])
	}
	targets := make([]int32, start[len(order)])
	fill := slices.Clone(start[:len(order)])
	for q, t := range order {
		for _, s := range g.in[t] {
			targets[fill[pos[s]]] = int32(q)
			fill[pos[s]]++
		}
	}
	var head []byte // "[p," for the source at p
	for p := range order {
		if start[p] == start[p+1] {
			continue
		}
		head = jsonw.Int(append(head[:0], '['), p)
		head = append(head, ',')
		for _, q := range targets[start[p]:start[p+1]] {
			b = append(b, head...)
			b = jsonw.Int(b, int(q))
			b = append(b, ']', ',')
		}
	}
	if len(targets) > 0 {
		b = b[:len(b)-1] // the last edge's ','
	}
	return b
}

// AppendNode appends a node object under the given displayed version.
func AppendNode(b []byte, displayVersion string, n *Node) []byte {
	b = append(b, `{"version":`...)
	b = jsonw.String(b, displayVersion)
	if !n.Abstract {
		b = append(b, `,"payload":`...)
		b = jsonw.String(b, n.Payload)
		b = append(b, `,"metadata":`...)
		b = jsonw.StringMap(b, n.Metadata)
	}
	return append(b, '}')
}

// AppendEdge appends an index pair.
func AppendEdge(b []byte, from, to int) []byte {
	b = append(b, '[')
	b = jsonw.Int(b, from)
	b = append(b, ',')
	b = jsonw.Int(b, to)
	return append(b, ']')
}

// AppendConditional appends a conditionalEdges array (spec §7.1 key order).
func AppendConditional(b []byte, groups []ConditionalEdge) []byte {
	b = append(b, '[')
	for gi, ce := range groups {
		if gi > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"edges":[`...)
		for i, e := range ce.Edges {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"from":`...)
			b = jsonw.String(b, e.From)
			b = append(b, `,"to":`...)
			b = jsonw.String(b, e.To)
			b = append(b, '}')
		}
		b = append(b, `],"risks":`...)
		b = AppendRisks(b, ce.Risks)
		b = append(b, '}')
	}
	return append(b, ']')
}

// AppendRisks appends a risks array; a rule's promql object is omitted when
// its query is empty, as upstream serializes "Always" rules.
func AppendRisks(b []byte, risks []Risk) []byte {
	b = append(b, '[')
	for i, r := range risks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"url":`...)
		b = jsonw.String(b, r.URL)
		b = append(b, `,"name":`...)
		b = jsonw.String(b, r.Name)
		b = append(b, `,"message":`...)
		b = jsonw.String(b, r.Message)
		b = append(b, `,"matchingRules":[`...)
		for k, mr := range r.MatchingRules {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":`...)
			b = jsonw.String(b, mr.Type)
			if mr.PromQL != "" {
				b = append(b, `,"promql":{"promql":`...)
				b = jsonw.String(b, mr.PromQL)
				b = append(b, '}')
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, ']')
}

// SortedOrder returns node indices ordered by SemVer precedence, then by
// version string; versions that are not SemVer sort last by string. The
// slice is the caller's. The order is kept until a node is added: a build
// and its rendering ask for it several times, and it depends on the
// versions alone.
func (g *Graph) SortedOrder() []int {
	g.orderMu.Lock()
	defer g.orderMu.Unlock()
	if len(g.order) != len(g.nodes) {
		order := make([]int, g.Len())
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, c int) bool { return nodeLess(g.nodes[order[a]], g.nodes[order[c]]) })
		g.order = order
	}
	return slices.Clone(g.order)
}
