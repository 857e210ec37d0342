package graph

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestDecodeRules(t *testing.T) {
	const two = `{"version":"1.0.0","payload":"image:1.0.0","metadata":{}},{"version":"2.0.0","payload":"image:2.0.0","metadata":{}}`
	for _, tc := range []struct {
		name    string
		in      string
		wantErr []string // substrings of the error; nil: success
	}{
		{"minimal", `{"nodes":[],"edges":[]}`, nil},
		{"conditionalEdges optional", `{"nodes":[` + two + `],"edges":[[0,1]]}`, nil},
		{"edge not a pair: one int", `{"nodes":[` + two + `],"edges":[[0,1],[0]]}`, []string{"in.json", "edges[1]"}},
		{"edge not a pair: three ints", `{"nodes":[` + two + `],"edges":[[0,1,1]]}`, []string{"edges[0]"}},
		{"edge not a pair: string", `{"nodes":[` + two + `],"edges":[[0,"1"]]}`, []string{"edges[0]"}},
		{"edge not a pair: object", `{"nodes":[` + two + `],"edges":[{"from":0,"to":1}]}`, []string{"edges[0]"}},
		{"edge not a pair: float", `{"nodes":[` + two + `],"edges":[[0,1.5]]}`, []string{"edges[0]"}},
		{"index out of range", `{"nodes":[` + two + `],"edges":[[0,1],[1,2]]}`, []string{"edges[1]", "out of range"}},
		{"negative index", `{"nodes":[` + two + `],"edges":[[-1,1]]}`, []string{"edges[0]", "out of range"}},
		{"self-loop", `{"nodes":[` + two + `],"edges":[[1,1]]}`, []string{"edges[0]", "self-loop", "2.0.0"}},
		{"cycle", `{"nodes":[` + two + `],"edges":[[0,1],[1,0]]}`, []string{"cycle", "1.0.0", "2.0.0"}},
		{"duplicate version", `{"nodes":[` + two + `,{"version":"1.0.0"}],"edges":[]}`, []string{"nodes[2]", "duplicate", "1.0.0"}},
		{"empty version", `{"nodes":[{"version":""}],"edges":[]}`, []string{"nodes[0]", "version"}},
		{"missing version", `{"nodes":[{"payload":"x","metadata":{}}],"edges":[]}`, []string{"nodes[0]", "version"}},
		{"unknown top-level key", `{"nodes":[],"edges":[],"extra":1}`, []string{"extra"}},
		{"missing nodes", `{"edges":[]}`, []string{"nodes"}},
		{"missing edges", `{"nodes":[]}`, []string{"edges"}},
		// In JSON's terms, never Go's: no "Go value", no "graph.wireGraph".
		{"not an object", `[]`, []string{"in.json", "line 1, column 1: want an object, got array"}},
		{"version not a string", `{"nodes":[{"version":5}],"edges":[]}`, []string{"line 1, column 22: nodes.version: want a string, got number"}},
		{"long version quoted in part", `{"nodes":[{"version":"4.16.` + strings.Repeat("1", 100_000) + `"},{"version":"4.16.` + strings.Repeat("1", 100_000) + `"}],"edges":[]}`,
			[]string{"nodes[1]: duplicate node version \"4.16.1111", "… (100005 bytes)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Decode("in.json", []byte(tc.in))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Decode(%s) = %v, want success", tc.in, err)
				}
				if g.Conditional != nil && len(g.Conditional) != 0 {
					t.Errorf("Conditional = %v, want empty", g.Conditional)
				}
				return
			}
			if err == nil {
				t.Fatalf("Decode(%s) succeeded, want an error containing %q", tc.in, tc.wantErr)
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Decode(%.80s) error %.300q does not contain %q", tc.in, err, s)
				}
			}
			for _, leak := range []string{"Go value", "Go struct", "wire"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error %.300q names Go's types (%q)", err, leak)
				}
			}
			if len(err.Error()) > 1000 {
				t.Errorf("error is %d bytes long: a bad value must be quoted in part", len(err.Error()))
			}
		})
	}
}

func TestDecodeCycleError(t *testing.T) {
	in := `{"nodes":[{"version":"1.0.0"},{"version":"2.0.0"},{"version":"3.0.0"}],"edges":[[0,1],[1,2],[2,1]]}`
	_, err := Decode("g.json", []byte(in))
	var ce *CycleError
	if !errors.As(err, &ce) {
		t.Fatalf("Decode error = %v, want a *CycleError", err)
	}
	got := slices.Clone(ce.Versions)
	// The cycle is 2.0.0 -> 3.0.0 -> 2.0.0 (the path is closed by repeating its start).
	if len(got) != 3 || got[0] != got[2] || !slices.Contains(got, "2.0.0") || !slices.Contains(got, "3.0.0") || slices.Contains(got, "1.0.0") {
		t.Errorf("cycle versions = %v, want the closed cycle 2.0.0/3.0.0 without 1.0.0", got)
	}
}

func TestDecodeAbstract(t *testing.T) {
	in := `{"nodes":[
		{"version":"1.0.0","payload":"image:1.0.0","metadata":{"k":"v"}},
		{"version":"2.0.0","metadata":{"k":"v"}},
		{"version":"3.0.0","payload":"image:3.0.0"},
		{"version":"4.0.0"}
	],"edges":[[1,0],[3,0]]}`
	g, err := Decode("in.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version  string
		abstract bool
	}{
		{"1.0.0", false},
		{"2.0.0", true}, // no payload
		{"3.0.0", true}, // no metadata: payload dropped
		{"4.0.0", true},
	} {
		i, ok := g.Lookup(tc.version)
		if !ok {
			t.Fatalf("node %s missing", tc.version)
		}
		n := g.Node(i)
		if n.Abstract != tc.abstract {
			t.Errorf("%s: Abstract = %v, want %v", tc.version, n.Abstract, tc.abstract)
		}
		if n.Abstract && (n.Payload != "" || len(n.Metadata) != 0) {
			t.Errorf("%s: abstract node keeps payload %q / metadata %v", tc.version, n.Payload, n.Metadata)
		}
	}
	if got := g.EdgeCount(); got != 2 {
		t.Errorf("EdgeCount = %d, want 2", got)
	}
	// Abstract nodes serialise as {"version": …} only.
	if got, want := string(g.Encode(nil)), `{"nodes":[{"version":"1.0.0","payload":"image:1.0.0","metadata":{"k":"v"}},{"version":"2.0.0"},{"version":"3.0.0"},{"version":"4.0.0"}],"edges":[[1,0],[3,0]],"conditionalEdges":[]}`; got != want {
		t.Errorf("Encode =\n%s\nwant\n%s", got, want)
	}
}

func TestDecodeSyntaxErrorPosition(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		// The offending '}' is on line 3 (after `"edges": [1,`).
		{"syntax", "{\n\"nodes\": [],\n\"edges\": [1,}\n", "line 3, column "},
		// A wrong type: "nodes" holds a string on line 2.
		{"type", "{\n  \"nodes\": \"x\",\n  \"edges\": []\n}", "line 2,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("bad.json", []byte(tc.in))
			if err == nil {
				t.Fatal("Decode succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bad.json: ") {
				t.Errorf("error %q: want prefix %q and %q", err, "bad.json: ", tc.want)
			}
		})
	}
}

// TestDecodeSyntaxErrorColumn pins the column of a syntax error to the
// offending character.
func TestDecodeSyntaxErrorColumn(t *testing.T) {
	// '}' is the 13th character of line 3.
	_, err := Decode("bad.json", []byte("{\n\"nodes\": [],\n\"edges\": [1,}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3, column 13:") {
		t.Errorf("error = %v, want it to point at line 3, column 13", err)
	}
	// Single line: 'x' is character 10.
	_, err = Decode("bad.json", []byte(`{"nodes":x}`))
	if err == nil || !strings.Contains(err.Error(), "line 1, column 10:") {
		t.Errorf("error = %v, want it to point at line 1, column 10", err)
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n\nef")
	for _, tc := range []struct {
		off       int64
		line, col int
	}{
		{0, 1, 1}, {1, 1, 2}, {3, 2, 1}, {5, 2, 3}, {6, 3, 1}, {9, 4, 3}, {100, 4, 3},
	} {
		if l, c := LineCol(data, tc.off); l != tc.line || c != tc.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
}

// serializationGraph is upstream's lib.rs serialization example: three
// nodes, payloads image/<v>, edges [0,1],[1,2],[0,2].
func serializationGraph(t *testing.T) *Graph {
	t.Helper()
	g := New()
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		if _, err := g.AddNode(&Node{Version: v, Payload: "image/" + v}); err != nil {
			t.Fatal(err)
		}
	}
	g.AddEdge(0, 1)
	g.AddEdge(1, 2)
	g.AddEdge(0, 2)
	return g
}

const serializationNodes = `{"nodes":[{"version":"1.0.0","payload":"image/1.0.0","metadata":{}},{"version":"2.0.0","payload":"image/2.0.0","metadata":{}},{"version":"3.0.0","payload":"image/3.0.0","metadata":{}}],"edges":[[0,1],[0,2],[1,2]]`

func TestEncode(t *testing.T) {
	promql := MatchingRule{Type: "PromQL", PromQL: `cluster_infrastructure_provider{type="CloudProvider"}`}
	risk := func(rules ...MatchingRule) []ConditionalEdge {
		return []ConditionalEdge{{
			Edges: []EdgeRef{{From: "1.0.0", To: "2.0.0"}},
			Risks: []Risk{{URL: "https://example.com/1", Name: "BrokenUpdates", Message: "Broken <updates> & more.", MatchingRules: rules}},
		}}
	}
	const ceHead = `[{"edges":[{"from":"1.0.0","to":"2.0.0"}],"risks":[{"url":"https://example.com/1","name":"BrokenUpdates","message":"Broken <updates> & more.","matchingRules":`
	for _, tc := range []struct {
		name string
		ce   []ConditionalEdge
		want string
	}{
		{"no conditional edges", nil, serializationNodes + `,"conditionalEdges":[]}`},
		{"PromQL", risk(promql), serializationNodes + `,"conditionalEdges":` + ceHead + `[{"type":"PromQL","promql":{"promql":"cluster_infrastructure_provider{type=\"CloudProvider\"}"}}]}]}]}`},
		{"Always", risk(MatchingRule{Type: "Always"}), serializationNodes + `,"conditionalEdges":` + ceHead + `[{"type":"Always"}]}]}]}`},
		{"both, promql with > and newline", risk(MatchingRule{Type: "PromQL", PromQL: "group(x > 0)\n"}, MatchingRule{Type: "Always"}),
			serializationNodes + `,"conditionalEdges":` + ceHead + `[{"type":"PromQL","promql":{"promql":"group(x > 0)\n"}},{"type":"Always"}]}]}]}`},
		{"no rules", risk(), serializationNodes + `,"conditionalEdges":` + ceHead + `[]}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := serializationGraph(t)
			g.Conditional = tc.ce
			got := string(g.Encode(nil))
			if got != tc.want {
				t.Fatalf("Encode =\n%s\nwant\n%s", got, tc.want)
			}
			// Round trip: decoding and re-encoding is byte-identical.
			g2, err := Decode("rt.json", []byte(got))
			if err != nil {
				t.Fatalf("Decode(Encode()) = %v", err)
			}
			if again := string(g2.Encode(nil)); again != got {
				t.Errorf("round trip changed the document:\n%s\nwant\n%s", again, got)
			}
		})
	}
}

func TestEncodeRoundTripByteIdentical(t *testing.T) {
	for _, in := range []string{
		`{"nodes":[],"edges":[],"conditionalEdges":[]}`,
		serializationNodes + `,"conditionalEdges":[]}`,
		`{"nodes":[{"version":"4.7.4+amd64","payload":"quay.io/r@sha256:aa","metadata":{"a":"1","b":"<&>","io.openshift.upgrades.graph.previous.remove_regex":"4\\.6\\..*|.*"}},{"version":"4.6.1+amd64"}],"edges":[[1,0]],"conditionalEdges":[{"edges":[{"from":"4.6.1+amd64","to":"4.7.4+amd64"}],"risks":[{"url":"u","name":"N","message":"m \"q\"","matchingRules":[{"type":"Always"}]}]}]}`,
	} {
		g, err := Decode("in.json", []byte(in))
		if err != nil {
			t.Fatalf("Decode(%s) = %v", in, err)
		}
		if got := string(g.Encode(nil)); got != in {
			t.Errorf("round trip of\n%s\ngave\n%s", in, got)
		}
	}
}

func TestEncodeOrder(t *testing.T) {
	g := New()
	for _, v := range []string{"2.0.0", "1.0.0+amd64", "1.0.0", "10.0.0", "1.0.0-rc.1"} {
		if _, err := g.AddNode(&Node{Version: v, Payload: "p", Metadata: map[string]string{"z": "1", "a": "2"}}); err != nil {
			t.Fatal(err)
		}
	}
	g.AddEdge(1, 0) // 1.0.0+amd64 -> 2.0.0
	g.AddEdge(4, 3) // 1.0.0-rc.1 -> 10.0.0
	order := g.SortedOrder()
	var got []string
	for _, i := range order {
		got = append(got, g.Node(i).Version)
	}
	want := []string{"1.0.0-rc.1", "1.0.0", "1.0.0+amd64", "2.0.0", "10.0.0"}
	if !slices.Equal(got, want) {
		t.Fatalf("SortedOrder = %v, want %v", got, want)
	}
	const md = `"metadata":{"a":"2","z":"1"}`
	wantJSON := `{"nodes":[{"version":"1.0.0-rc.1","payload":"p",` + md + `},{"version":"1.0.0","payload":"p",` + md + `},{"version":"1.0.0+amd64","payload":"p",` + md + `},{"version":"2.0.0","payload":"p",` + md + `},{"version":"10.0.0","payload":"p",` + md + `}],"edges":[[0,4],[2,3]],"conditionalEdges":[]}`
	if s := string(g.Encode(order)); s != wantJSON {
		t.Errorf("Encode(sorted) =\n%s\nwant\n%s", s, wantJSON)
	}
}

// TestDecodeDuplicateTopLevelKey: spec §7.3, "a duplicated top-level key is
// an error".
func TestDecodeDuplicateTopLevelKey(t *testing.T) {
	for _, in := range []string{
		`{"nodes":[{"version":"1.0.0"}],"edges":[],"nodes":[]}`,
		`{"nodes":[],"edges":[],"edges":[]}`,
		`{"nodes":[],"edges":[],"conditionalEdges":[],"conditionalEdges":[]}`,
	} {
		if _, err := Decode("dup.json", []byte(in)); err == nil {
			t.Errorf("Decode(%s) succeeded, want a duplicate-key error", in)
		}
	}
}

func TestDecodeConditionalDefaults(t *testing.T) {
	g, err := Decode("in.json", []byte(`{"nodes":[],"edges":[],"conditionalEdges":[{},{"edges":[{"from":"a"}],"risks":[{"name":"n","matchingRules":[{}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Conditional) != 2 || len(g.Conditional[0].Edges)+len(g.Conditional[0].Risks) != 0 {
		t.Fatalf("conditional = %+v", g.Conditional)
	}
	ce := g.Conditional[1]
	if len(ce.Edges) != 1 || ce.Edges[0] != (EdgeRef{From: "a"}) || len(ce.Risks) != 1 || ce.Risks[0].Name != "n" ||
		ce.Risks[0].URL != "" || len(ce.Risks[0].MatchingRules) != 1 || ce.Risks[0].MatchingRules[0] != (MatchingRule{}) {
		t.Errorf("conditional[1] = %+v", ce)
	}
}

// TestDecodeConditionalUnknownFields: spec §7.3, "Conditional edges: all
// fields default to empty when missing; unknown fields ignored".
func TestDecodeConditionalUnknownFields(t *testing.T) {
	for _, in := range []string{
		`{"nodes":[],"edges":[],"conditionalEdges":[{"edges":[],"risks":[],"extra":1}]}`,
		`{"nodes":[],"edges":[],"conditionalEdges":[{"edges":[],"risks":[{"url":"u","name":"n","message":"m","matchingRules":[],"extra":1}]}]}`,
		`{"nodes":[],"edges":[],"conditionalEdges":[{"edges":[],"risks":[{"url":"u","name":"n","message":"m","matchingRules":[{"type":"Always","extra":1}]}]}]}`,
		`{"nodes":[],"edges":[],"conditionalEdges":[{"edges":[],"risks":[{"url":"u","name":"n","message":"m","matchingRules":[{"type":"PromQL","promql":{"promql":"up","extra":1}}]}]}]}`,
	} {
		if _, err := Decode("in.json", []byte(in)); err != nil {
			t.Errorf("Decode(%s) = %v, want unknown fields ignored", in, err)
		}
	}
}
