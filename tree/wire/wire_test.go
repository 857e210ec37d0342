package wire

import (
	"reflect"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	d, err := Decode([]byte(`{"version":1,"nodes":[
		{"version":"4.1.0","payload":"p0","metadata":{"k":"v"}},
		{"version":"4.1.1","payload":"p1"}],
		"edges":[[0,1], [ 1 ,0 ]],
		"conditionalEdges":[{"edges":[{"from":"4.1.0","to":"4.1.1"}],
			"risks":[{"url":"u","name":"R","message":"m","matchingRules":[{"type":"PromQL","promql":{"promql":"q"}},{"type":"Always"}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &Document{
		Nodes: []Node{{"4.1.0", "p0", map[string]string{"k": "v"}}, {"4.1.1", "p1", nil}},
		Edges: []Edge{{0, 1}, {1, 0}},
		ConditionalEdges: []ConditionalEdge{{Edges: []EdgeRef{{"4.1.0", "4.1.1"}},
			Risks: []Risk{{URL: "u", Name: "R", Message: "m", MatchingRules: []MatchingRule{{"PromQL", &PromQL{"q"}}, {Type: "Always"}}}}}},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("got %+v\nwant %+v", d, want)
	}
	if q := d.ConditionalEdges[0].Risks[0].MatchingRules; q[0].Query() != "q" || q[1].Query() != "" {
		t.Errorf("Query: %q, %q", q[0].Query(), q[1].Query())
	}
	if d, err := Decode([]byte(`{"version":1}`)); err != nil || d.Nodes != nil || d.Edges != nil {
		t.Errorf("absent keys: %+v, %v", d, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	const n1 = `"nodes":[{"version":"4.1.0","payload":"p"}]`
	for doc, want := range map[string]string{
		`[]`:                      "cannot unmarshal",
		`{`:                       "unexpected end of JSON input",
		`{"nodes":[],"edges":[]}`: `no "version" key`,
		`{"version":2}`:           "graph format version 2, want 1",
		`{"version":1,"nodes":[{"version":"4.1.0"}]}`:                                                 "nodes[0]: want version and payload",
		`{"version":1,"nodes":[{"version":"4.1.0","payload":"p"},{"version":"4.1.0","payload":"q"}]}`: "nodes[1]: duplicate version 4.1.0",
		`{"version":1,` + n1 + `,"edges":[[0,1]]}`:                                                    "edges[0]: [0 1] is not a pair of node indices (1 nodes)",
		`{"version":1,` + n1 + `,"edges":[[0,0],[0]]}`:                                                "edges[1]: [0] is not a pair of node indices (1 nodes)",
		`{"version":1,` + n1 + `,"edges":[[0,0,0]]}`:                                                  "edges[0]: [0 0 0] is not a pair of node indices (1 nodes)",
		`{"version":1,` + n1 + `,"edges":[[-1,0]]}`:                                                   "edges[0]: [-1 0] is not a pair of node indices (1 nodes)",
		`{"version":1,` + n1 + `,"edges":[null]}`:                                                     "edges[0]: [] is not a pair of node indices (1 nodes)",
		`{"version":1,` + n1 + `,"edges":[[0,1.5]]}`:                                                  "cannot unmarshal number 1.5",
		`{"version":1,` + n1 + `,"edges":[[0,"a"]]}`:                                                  "cannot unmarshal string",
		`{"nodes":[{"version":"4.1.0"}],"edges":[["a"]]}`:                                             "cannot unmarshal string", // JSON errors first
		`{"version":1,` + n1 + `,"edges":[[0,9999999999]]}`:                                           "9999999999] is not a pair",
	} {
		if _, err := Decode([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}
