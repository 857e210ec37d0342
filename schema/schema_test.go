package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	shared      = "../../shared"
	realData    = shared + "/graph-data"
	conformance = shared + "/conformance"
	demo        = "../testdata/demo"
)

// validateFile validates one file by its place in a graph-data tree (or as
// kind when given) and reports every problem.
func validateFile(t *testing.T, kind Kind, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ps []Problem
	if strings.HasSuffix(path, ".yaml") {
		ps, err = ValidateYAML(kind, data)
	} else {
		ps, err = Validate(kind, data)
	}
	if err != nil {
		t.Errorf("%s: %v", path, err)
	}
	for _, p := range ps {
		t.Errorf("%s: %s", path, p)
	}
}

// validateGraphData validates every file upgraph (or graph-data CI) reads
// in a graph-data tree and returns how many it checked.
func validateGraphData(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for sub, kind := range map[string]Kind{"channels": Channel, "internal-channels": Channel, "blocked-edges": BlockedEdge} {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			validateFile(t, kind, f)
			n++
		}
	}
	validateFile(t, RawMetadata, filepath.Join(dir, "raw", "metadata.json"))
	return n + 1
}

func TestRealGraphData(t *testing.T) {
	if n := validateGraphData(t, realData); n < 1700 {
		t.Errorf("validated only %d files of %s", n, realData)
	}
}

func TestConformanceFixtures(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join(conformance, "2*"))
	if err != nil || len(fixtures) != 3 {
		t.Fatalf("fixtures in %s: %v %v", conformance, fixtures, err)
	}
	for _, fx := range fixtures {
		validateGraphData(t, filepath.Join(fx, "cincinnati-graph-data"))
		graphs, _ := filepath.Glob(filepath.Join(fx, "graph-gb*.json"))
		if len(graphs) != 2 {
			t.Errorf("%s: graphs %v", fx, graphs)
		}
		for _, g := range graphs {
			validateFile(t, GraphBuilder, g)
		}
	}
}

func TestDemo(t *testing.T) {
	validateGraphData(t, filepath.Join(demo, "graph-data"))
	releases, _ := filepath.Glob(filepath.Join(demo, "releases", "*.json"))
	if len(releases) == 0 {
		t.Fatal("no demo releases")
	}
	for _, f := range releases {
		validateFile(t, ReleaseMetadata, f)
	}
}

func TestFiles(t *testing.T) {
	fs := Files()
	for _, k := range Kinds() {
		data, ok := fs[k.FileName()]
		if !ok {
			t.Errorf("no file for %s", k)
			continue
		}
		var doc struct {
			Schema string `json:"$schema"`
			ID     string `json:"$id"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.ID != BaseURL+k.FileName() || doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $id %q, $schema %q", k, doc.ID, doc.Schema)
		}
	}
	if _, ok := fs["common.schema.json"]; !ok {
		t.Error("common.schema.json is not published, the others refer to it")
	}
	fs["graph.schema.json"][0] = 'x' // the caller's copy
	if Files()["graph.schema.json"][0] != '{' {
		t.Error("Files shares its slices")
	}
	if _, err := Validate("nope", []byte("{}")); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestNotJSONOrYAML(t *testing.T) {
	for _, in := range []string{"", "{", `{"a":1} x`, "[1,]"} {
		if _, err := Validate(Graph, []byte(in)); err == nil {
			t.Errorf("Validate(%q): no error", in)
		}
	}
	_, err := Validate(Graph, []byte("{\n\"nodes\": [\n}"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error without the line: %v", err)
	}
	if _, err := ValidateYAML(Channel, []byte("name: [\n")); err == nil {
		t.Error("ValidateYAML accepted broken YAML")
	}
}

// Valid documents the table below breaks one constraint at a time.
const (
	risk = `to: 4.16.2
from: 4[.]16[.]0[+].*
url: https://issues.example.com/browse/DEMO-1
name: ExampleEtcdRisk
message: |
  Slow leader elections.
matchingRules:
- type: PromQL
  promql:
    promql: |
      group(cluster_operator_conditions{name="etcd"} > 3)
- type: Always
`
	block   = "# comment\nto: 4.16.1\nfrom: 4[.]15[.]0[+].*\n"
	channel = "name: fast-4.16\nversions:\n- 4.15.0\n- 4.16.0+amd64\n"
	graph   = `{"version":1,
"nodes":[
 {"version":"4.16.0","payload":"quay.io/r@sha256:0","metadata":{"io.openshift.upgrades.graph.release.channels":"fast-4.16","url":"https://x/y"}},
 {"version":"4.16.1","payload":"quay.io/r@sha256:1","metadata":{"io.openshift.upgrades.graph.release.channels":"fast-4.16"}},
 {"version":"4.16.2","payload":"quay.io/r@sha256:2","metadata":{"io.openshift.upgrades.graph.release.channels":"fast-4.16"}}
],
"edges":[[0,1]],
"conditionalEdges":[
 {"edges":[{"from":"4.16.0","to":"4.16.2"}],
  "risks":[{"url":"https://issues.example.com/browse/DEMO-1","name":"ExampleEtcdRisk","message":"Slow.",
            "matchingRules":[{"type":"PromQL","promql":{"promql":"group(x > 3)"}},{"type":"Always"}]}]}
]}`
	gbGraph = `{"nodes":[
 {"version":"4.16.0+amd64","payload":"quay.io/r@sha256:0","metadata":{}},
 {"version":"4.16.1+amd64"}
],
"edges":[[0,1]]}`
	index = `{"format":1,"generator":"upgraph","generatedAt":"2026-11-21T20:00:00Z",
 "inputs":{"graphData":{"version":"1.1.0","digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000"},
           "releases":{"kind":"metadata","digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}},
 "arches":["amd64"],"channels":["fast-4.16"],
 "counts":{"releases":1,"abstractReleases":0,"edges":0,"conditionalEdges":0,"graphs":1,
           "versionGraphs":1,"files":3,"bytes":3,"distinctFiles":3,"distinctBytes":3},
 "graphs":[{"channel":"fast-4.16","arch":"amd64","path":"graph/amd64/fast-4.16.json",
            "nodes":1,"edges":0,"conditionalEdges":0,"versions":["4.16.0"]}],
 "files":{"graph/amd64/fast-4.16.json":{"sha256":"0000000000000000000000000000000000000000000000000000000000000000","size":1},
          "graph/amd64/fast-4.16/4.16.0.json":{"sha256":"0000000000000000000000000000000000000000000000000000000000000000","size":1},
          "graph/empty.json":{"sha256":"0000000000000000000000000000000000000000000000000000000000000000","size":1}}
}
`
	viewerGraphs = `{"format":1,
 "arches":["amd64","arm64"],"channels":["fast-4.16","stable-4.16"],
 "graphs":[
  {"channel":"fast-4.16","arch":"amd64","path":"graph/amd64/fast-4.16.json","nodes":6,"edges":13,"conditionalEdges":1},
  {"channel":"stable-4.16","arch":"arm64","path":"graph/arm64/stable-4.16.json","nodes":5,"edges":9,"conditionalEdges":0}
 ]}
`
	// demoViewerGraphs is the demo tree's viewer/graphs.json as
	// upgraph generate --demo writes it (compact, one line).
	demoViewerGraphs = `{"format":1,"arches":["amd64","arm64"],"channels":["candidate-4.15","candidate-4.16","fast-4.15","fast-4.16","stable-4.15","stable-4.16"],"graphs":[{"channel":"candidate-4.15","arch":"amd64","path":"graph/amd64/candidate-4.15.json","nodes":3,"edges":3,"conditionalEdges":0},{"channel":"candidate-4.15","arch":"arm64","path":"graph/arm64/candidate-4.15.json","nodes":3,"edges":3,"conditionalEdges":0},{"channel":"candidate-4.16","arch":"amd64","path":"graph/amd64/candidate-4.16.json","nodes":6,"edges":13,"conditionalEdges":1},{"channel":"candidate-4.16","arch":"arm64","path":"graph/arm64/candidate-4.16.json","nodes":6,"edges":13,"conditionalEdges":1},{"channel":"fast-4.15","arch":"amd64","path":"graph/amd64/fast-4.15.json","nodes":3,"edges":3,"conditionalEdges":0},{"channel":"fast-4.15","arch":"arm64","path":"graph/arm64/fast-4.15.json","nodes":3,"edges":3,"conditionalEdges":0},{"channel":"fast-4.16","arch":"amd64","path":"graph/amd64/fast-4.16.json","nodes":6,"edges":13,"conditionalEdges":1},{"channel":"fast-4.16","arch":"arm64","path":"graph/arm64/fast-4.16.json","nodes":6,"edges":13,"conditionalEdges":1},{"channel":"stable-4.15","arch":"amd64","path":"graph/amd64/stable-4.15.json","nodes":3,"edges":3,"conditionalEdges":0},{"channel":"stable-4.15","arch":"arm64","path":"graph/arm64/stable-4.15.json","nodes":3,"edges":3,"conditionalEdges":0},{"channel":"stable-4.16","arch":"amd64","path":"graph/amd64/stable-4.16.json","nodes":5,"edges":9,"conditionalEdges":0},{"channel":"stable-4.16","arch":"arm64","path":"graph/arm64/stable-4.16.json","nodes":5,"edges":9,"conditionalEdges":0}]}
`
	release = `{
  "kind": "cincinnati-metadata-v0",
  "version": "4.16.0",
  "previous": ["4.15.0"],
  "metadata": {"url": "https://access.redhat.com/errata/RHBA-2024:1150"},
  "payload": "quay.io/openshift-release-dev/ocp-release@sha256:9cedff0b407ac2c5ac7a05df1f5a00613dc28f95e8c7685c7b464535b3fe0de0",
  "arch": "amd64"
}`
	raw = `{
  "4.1.0": {
    "io.openshift.upgrades.graph.previous.add": "4.1.0-rc.4, 4.1.0-rc.9"
  }
}`
)

func TestValidDocuments(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		doc  string
	}{{BlockedEdge, risk}, {BlockedEdge, block}, {Channel, channel}, {Graph, graph}, {GraphBuilder, gbGraph},
		{Index, index}, {ViewerGraphs, viewerGraphs}, {ViewerGraphs, demoViewerGraphs},
		{ViewerGraphs, `{"format":1,"arches":[],"channels":[],"graphs":[]}`}, {ReleaseMetadata, release}, {RawMetadata, raw}, {Graph, `{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`}} {
		validate := Validate
		if c.kind == BlockedEdge || c.kind == Channel {
			validate = ValidateYAML
		}
		ps, err := validate(c.kind, []byte(c.doc))
		if err != nil || len(ps) > 0 {
			t.Errorf("%s: %v %v\n%s", c.kind, err, ps, c.doc)
		}
	}
}

// TestInvalidDocuments breaks one constraint per case and expects problems
// at exactly one pointer, on the given line, with the message containing
// want.
func TestInvalidDocuments(t *testing.T) {
	rep := func(doc, old, new string) string {
		if !strings.Contains(doc, old) {
			t.Fatalf("%q not in %s", old, doc)
		}
		return strings.Replace(doc, old, new, 1)
	}
	cases := []struct {
		name    string
		kind    Kind
		doc     string
		pointer string
		line    int
		want    string
	}{
		// blocked edges (YAML)
		{"block missing to", BlockedEdge, rep(block, "to: 4.16.1\n", ""), "", 2, "missing properties: 'to'"},
		{"block to not semver", BlockedEdge, rep(block, "4.16.1", "v4.16.1"), "/to", 2, "SemVer"},
		{"block to is a number", BlockedEdge, rep(block, "4.16.1", "4.16"), "/to", 2, "string"},
		{"block from bad regex", BlockedEdge, rep(block, "4[.]15[.]0[+].*", "'4[.15'"), "/from", 3, "regex"},
		{"block extra key", BlockedEdge, block + "fixedIn: 4.16.2\n", "", 2, "neither an unconditional block"},
		{"block duplicate key", BlockedEdge, block + "to: 4.16.2\n", "/to", 4, "duplicate key"},
		{"risk missing url", BlockedEdge, rep(risk, "url: https://issues.example.com/browse/DEMO-1\n", ""), "", 1, "missing properties: 'url'"},
		{"risk http url", BlockedEdge, rep(risk, "https://issues", "http://issues"), "/url", 3, "https://"},
		{"risk relative url", BlockedEdge, rep(risk, "https://issues.example.com", "issues.example.com"), "/url", 3, "https://"},
		{"risk name not CamelCase", BlockedEdge, rep(risk, "ExampleEtcdRisk", "example-etcd-risk"), "/name", 4, "CamelCase"},
		{"risk empty message", BlockedEdge, rep(risk, "message: |\n  Slow leader elections.\n", "message: ''\n"), "/message", 5, "empty"},
		{"risk message not a string", BlockedEdge, rep(risk, "message: |\n  Slow leader elections.\n", "message: [a]\n"), "/message", 5, "string"},
		{"risk empty matchingRules", BlockedEdge, risk[:strings.Index(risk, "matchingRules:")] + "matchingRules: []\n", "/matchingRules", 7, "at least one rule"},
		{"risk matchingRules not a list", BlockedEdge, risk[:strings.Index(risk, "matchingRules:")] + "matchingRules: Always\n", "/matchingRules", 7, "array"},
		{"rule without type", BlockedEdge, rep(risk, "- type: Always", "- {}"), "/matchingRules/1", 12, "missing properties: 'type'"},
		{"rule unknown type", BlockedEdge, rep(risk, "type: Always", "type: Sometimes"), "/matchingRules/1/type", 12, `"Always" or "PromQL"`},
		{"Always with promql", BlockedEdge, rep(risk, "- type: Always", "- type: Always\n  promql:\n    promql: vector(1)"), "/matchingRules/1/promql", 13, `"promql" is not allowed`},
		{"PromQL without promql", BlockedEdge, rep(risk, "  promql:\n    promql: |\n      group(cluster_operator_conditions{name=\"etcd\"} > 3)\n", ""), "/matchingRules/0", 8, "needs promql"},
		{"PromQL with empty query", BlockedEdge, rep(risk, "    promql: |\n      group(cluster_operator_conditions{name=\"etcd\"} > 3)\n", "    promql: ''\n"), "/matchingRules/0/promql/promql", 10, "empty"},
		{"PromQL with extra key", BlockedEdge, rep(risk, "- type: PromQL\n", "- type: PromQL\n  comment: x\n"), "/matchingRules/0/comment", 9, `"comment" is not allowed`},
		{"duplicate rule type", BlockedEdge, risk + "- type: Always\n", "/matchingRules", 7, "more than one rule of type Always"},
		{"fixedIn not semver", BlockedEdge, risk + "fixedIn: soon\n", "/fixedIn", 13, "SemVer"},

		// channels (YAML)
		{"channel missing versions", Channel, "name: fast-4.16\n", "", 1, "missing properties: 'versions'"},
		{"channel bad version", Channel, rep(channel, "- 4.15.0", "- 4.15.0-"), "/versions/0", 3, "SemVer"},
		{"channel version number", Channel, rep(channel, "- 4.15.0", "- 4.15"), "/versions/0", 3, "string"},
		{"channel null versions", Channel, rep(channel, "versions:\n- 4.15.0\n- 4.16.0+amd64\n", "versions:\n"), "/versions", 2, "array"},
		{"channel bad name", Channel, rep(channel, "fast-4.16", "Fast 4.16"), "/name", 1, "channel name"},

		// raw/metadata.json
		{"raw value not a string", RawMetadata, rep(raw, `"4.1.0-rc.4, 4.1.0-rc.9"`, `["4.1.0-rc.4"]`), "/4.1.0/io.openshift.upgrades.graph.previous.add", 3, "string"},
		{"raw bad version list", RawMetadata, rep(raw, "4.1.0-rc.4,", "4.1.0-rc.4;"), "/4.1.0/io.openshift.upgrades.graph.previous.add", 3, "comma-separated"},
		{"raw key not semver", RawMetadata, rep(raw, `"4.1.0"`, `"4.1"`), "/4.1", 2, "SemVer"},
		{"raw duplicate version", RawMetadata, rep(raw, "\n}", ",\n  \"4.1.0\": {}\n}"), "/4.1.0", 5, "duplicate key"},

		// release-metadata
		{"release wrong kind", ReleaseMetadata, rep(release, "cincinnati-metadata-v0", "cincinnati-metadata-v1"), "/kind", 2, "cincinnati-metadata-v0"},
		{"release missing payload", ReleaseMetadata, rep(release, `"payload"`, `"payloads"`), "", 1, "missing properties: 'payload'"},
		{"release bad previous", ReleaseMetadata, rep(release, `["4.15.0"]`, `["4.15.0", "v4.15.1"]`), "/previous/1", 4, "SemVer"},
		{"release bad arch", ReleaseMetadata, rep(release, `"amd64"`, `"AMD64"`), "/arch", 7, "architecture"},
		{"release metadata not string", ReleaseMetadata, rep(release, `{"url"`, `{"n": 1, "url"`), "/metadata/n", 5, "string"},
		{"release architecture not multi", ReleaseMetadata, rep(release, `{"url"`, `{"release.openshift.io/architecture": "amd64", "url"`), "/metadata/release.openshift.io~1architecture", 5, "multi"},

		// policy-engine graph
		{"graph without version", Graph, rep(graph, `"version":1,`, ""), "", 1, "missing properties: 'version'"},
		{"graph version 2", Graph, rep(graph, `"version":1,`, `"version":2,`), "/version", 1, "must be 1"},
		{"graph unknown key", Graph, rep(graph, `"version":1,`, `"version":1,"extra":[],`), "/extra", 1, `"extra" is not allowed`},
		{"graph missing conditionalEdges", Graph, rep(graph, "\"edges\":[[0,1]],\n\"conditionalEdges\":[\n {\"edges\":[{\"from\":\"4.16.0\",\"to\":\"4.16.2\"}],\n  \"risks\":[{\"url\":\"https://issues.example.com/browse/DEMO-1\",\"name\":\"ExampleEtcdRisk\",\"message\":\"Slow.\",\n            \"matchingRules\":[{\"type\":\"PromQL\",\"promql\":{\"promql\":\"group(x > 3)\"}},{\"type\":\"Always\"}]}]}\n]", `"edges":[[0,1]]`), "", 1, "missing properties: 'conditionalEdges'"},
		{"node without version", Graph, rep(graph, `{"version":"4.16.1",`, `{`), "/nodes/1", 4, "missing properties: 'version'"},
		{"node bad version", Graph, rep(graph, `"4.16.1",`, `"4.16.1.0",`), "/nodes/1/version", 4, "SemVer"},
		{"node version with build", Graph, rep(graph, `"4.16.1",`, `"4.16.1+amd64",`), "/nodes/1/version", 4, "without build metadata"},
		{"node without payload", Graph, rep(graph, `"payload":"quay.io/r@sha256:1",`, ``), "/nodes/1", 4, "missing properties: 'payload'"},
		{"node without channels", Graph, rep(graph, `{"io.openshift.upgrades.graph.release.channels":"fast-4.16"}}`, `{}}`), "/nodes/1/metadata", 4, "io.openshift.upgrades.graph.release.channels"},
		{"node empty channels", Graph, rep(graph, `{"io.openshift.upgrades.graph.release.channels":"fast-4.16"}}`, `{"io.openshift.upgrades.graph.release.channels":""}}`), "/nodes/1/metadata/io.openshift.upgrades.graph.release.channels", 4, "channel names"},
		{"node url not a URL", Graph, rep(graph, `"https://x/y"`, `"http://[::1"`), "/nodes/0/metadata/url", 3, "must parse as a URL"},
		// Upstream 4.1 data (the conformance fixtures) has " https://…": fine
		// in graph-builder input, rejected by clusters when served.
		{"node url with leading space", Graph, rep(graph, `"https://x/y"`, `" https://x/y"`), "/nodes/0/metadata/url", 3, "must parse as a URL"},
		{"node metadata not string", Graph, rep(graph, `"url":"https://x/y"`, `"url":"https://x/y","n":1`), "/nodes/0/metadata/n", 3, "string"},
		{"duplicate node version", Graph, rep(graph, `"4.16.1",`, `"4.16.0",`), "/nodes/1/version", 4, "unique"},
		{"edge negative index", Graph, rep(graph, "[[0,1]]", "[[0,-1]]"), "/edges/0/1", 7, "start at 0"},
		{"edge index out of range", Graph, rep(graph, "[[0,1]]", "[[0,3]]"), "/edges/0/1", 7, "out of range"},
		{"edge not an integer", Graph, rep(graph, "[[0,1]]", "[[0,1.5]]"), "/edges/0/1", 7, "integer"},
		{"edge index 1.0", Graph, rep(graph, "[[0,1]]", "[[0,1.0]]"), "/edges/0/1", 7, "plain integer"},
		{"edge of three", Graph, rep(graph, "[[0,1]]", "[[0,1,2]]"), "/edges/0/2", 7, "exactly two"},
		{"edge of one", Graph, rep(graph, "[[0,1]]", "[[0]]"), "/edges/0", 7, "exactly two"},
		{"edge as object", Graph, rep(graph, "[[0,1]]", `[{"from":0,"to":1}]`), "/edges/0", 7, "array"},
		{"self-loop", Graph, rep(graph, "[[0,1]]", "[[1,1]]"), "/edges/0", 7, "self-loop"},
		{"cycle", Graph, rep(graph, "[[0,1]]", "[[0,1],[1,2],\n[2,0]]"), "/edges/2", 8, "cycle"},
		{"conditional edge to unknown node", Graph, rep(graph, `"to":"4.16.2"`, `"to":"4.16.3"`), "/conditionalEdges/0/edges/0/to", 9, "no node"},
		{"conditional edge twice", Graph, rep(graph, `{"from":"4.16.0","to":"4.16.2"}`, `{"from":"4.16.0","to":"4.16.2"},{"from":"4.16.0","to":"4.16.2"}`), "/conditionalEdges/0/edges/1", 9, "drop"},
		{"conditional edge without risks", Graph, rep(graph, "\"risks\":[{\"url\":\"https://issues.example.com/browse/DEMO-1\",\"name\":\"ExampleEtcdRisk\",\"message\":\"Slow.\",\n            \"matchingRules\":[{\"type\":\"PromQL\",\"promql\":{\"promql\":\"group(x > 3)\"}},{\"type\":\"Always\"}]}]", `"risks":[]`), "/conditionalEdges/0/risks", 10, "at least one risk"},
		{"risk without matchingRules", Graph, rep(graph, ",\n            \"matchingRules\":[{\"type\":\"PromQL\",\"promql\":{\"promql\":\"group(x > 3)\"}},{\"type\":\"Always\"}]", ""), "/conditionalEdges/0/risks/0", 10, "missing properties: 'matchingRules'"},
		{"risk empty matchingRules", Graph, rep(graph, "\"matchingRules\":[{\"type\":\"PromQL\",\"promql\":{\"promql\":\"group(x > 3)\"}},{\"type\":\"Always\"}]", `"matchingRules":[]`), "/conditionalEdges/0/risks/0/matchingRules", 11, "at least one"},
		{"risk url not a URI", Graph, rep(graph, `"url":"https://issues.example.com/browse/DEMO-1"`, `"url":"DEMO-1"`), "/conditionalEdges/0/risks/0/url", 10, "absolute URI"},
		{"risk http url is fine for clusters, empty name is not", Graph, rep(rep(graph, `"url":"https://issues`, `"url":"http://issues`), `"name":"ExampleEtcdRisk"`, `"name":""`), "/conditionalEdges/0/risks/0/name", 10, "empty"},
		{"risk empty message", Graph, rep(graph, `"message":"Slow."`, `"message":""`), "/conditionalEdges/0/risks/0/message", 10, "empty"},
		{"risk name twice", Graph, rep(graph, `"risks":[{`, `"risks":[{"url":"https://x/y","name":"ExampleEtcdRisk","message":"m","matchingRules":[{"type":"Always"}]},{`), "/conditionalEdges/0/risks/1/name", 10, "unique"},
		{"Always with promql", Graph, rep(graph, `{"type":"Always"}`, `{"type":"Always","promql":{"promql":"x"}}`), "/conditionalEdges/0/risks/0/matchingRules/1/promql", 11, "Always rule must not have promql"},
		{"PromQL without promql", Graph, rep(graph, `{"type":"PromQL","promql":{"promql":"group(x > 3)"}}`, `{"type":"PromQL"}`), "/conditionalEdges/0/risks/0/matchingRules/0", 11, "needs promql"},
		{"PromQL with empty query", Graph, rep(graph, `"group(x > 3)"`, `""`), "/conditionalEdges/0/risks/0/matchingRules/0/promql/promql", 11, "empty"},
		{"rule unknown type", Graph, rep(graph, `{"type":"Always"}`, `{"type":"always"}`), "/conditionalEdges/0/risks/0/matchingRules/1/type", 11, `"Always" or "PromQL"`},

		// graph-builder graph
		{"gb node without version", GraphBuilder, rep(gbGraph, `{"version":"4.16.1+amd64"}`, `{"payload":"x"}`), "/nodes/1", 3, "missing properties: 'version'"},
		{"gb empty version", GraphBuilder, rep(gbGraph, `"4.16.1+amd64"`, `""`), "/nodes/1/version", 3, "SemVer"},
		{"gb negative index", GraphBuilder, rep(gbGraph, "[[0,1]]", "[[-1,1]]"), "/edges/0/0", 5, "start at 0"},
		{"gb unknown top-level key", GraphBuilder, rep(gbGraph, `"edges"`, `"edge":[],"edges"`), "/edge", 5, "not allowed"},
		{"gb duplicate top-level key", GraphBuilder, rep(gbGraph, `"edges"`, `"edges":[],"edges"`), "/edges", 5, "duplicate key"},

		// index.json
		{"index missing files", Index, index[:strings.Index(index, ",\n \"files\"")] + "\n}\n", "", 1, "missing properties: 'files'"},
		{"index format 2", Index, rep(index, `"format":1`, `"format":2`), "/format", 1, "must be 1"},
		{"index bad generatedAt", Index, rep(index, "2026-11-21T20:00:00Z", "2026-11-21 20:00"), "/generatedAt", 1, "date-time"},
		{"index bad digest", Index, rep(index, `"digest":"sha256:0000`, `"digest":"sha512:0000`), "/inputs/graphData/digest", 2, "sha256"},
		{"index duplicate arch", Index, rep(index, `["amd64"]`, `["amd64","amd64"]`), "/arches", 4, "equal"},
		{"index negative count", Index, rep(index, `"releases":1`, `"releases":-1`), "/counts/releases", 5, ">= 0"},
		{"index unknown count", Index, rep(index, `"releases":1`, `"releases":1,"nodes":1`), "/counts/nodes", 5, `"nodes" is not allowed`},
		{"index graph path not in files", Index, rep(index, `"path":"graph/amd64/fast-4.16.json"`, `"path":"graph/amd64/stable-4.16.json"`), "/graphs/0/path", 7, "not in files"},
		{"index graph channel not in channels", Index, rep(index, `{"channel":"fast-4.16"`, `{"channel":"stable-4.16"`), "/graphs/0/channel", 7, "not in channels"},
		{"index escaping file path", Index, rep(index, `"graph/empty.json"`, `"../empty.json"`), "/files/..~1empty.json", 11, "relative path"},
		{"index bad file digest", Index, rep(index, `"graph/empty.json":{"sha256":"0000`, `"graph/empty.json":{"sha256":"X000`), "/files/graph~1empty.json/sha256", 11, "hex"},
		{"index file without size", Index, rep(index, `"graph/empty.json":{"sha256":"0000000000000000000000000000000000000000000000000000000000000000","size":1}`, `"graph/empty.json":{"sha256":"0000000000000000000000000000000000000000000000000000000000000000"}`), "/files/graph~1empty.json", 11, "missing properties: 'size'"},

		// viewer/graphs.json
		{"viewer graphs missing graphs", ViewerGraphs, viewerGraphs[:strings.Index(viewerGraphs, ",\n \"graphs\"")] + "}\n", "", 1, "missing properties: 'graphs'"},
		{"viewer graphs missing channels", ViewerGraphs, rep(viewerGraphs, `"channels":["fast-4.16","stable-4.16"],`, ""), "", 1, "missing properties: 'channels'"},
		{"viewer graphs format 2", ViewerGraphs, rep(viewerGraphs, `"format":1`, `"format":2`), "/format", 1, "must be 1"},
		{"viewer graphs format string", ViewerGraphs, rep(viewerGraphs, `"format":1`, `"format":"1"`), "/format", 1, "must be 1"},
		{"viewer graphs unknown key", ViewerGraphs, rep(viewerGraphs, `"format":1,`, `"format":1,"generatedAt":"2026-11-21T20:00:00Z",`), "/generatedAt", 1, `"generatedAt" is not allowed`},
		{"viewer graphs arches not a list", ViewerGraphs, rep(viewerGraphs, `["amd64","arm64"]`, `"amd64"`), "/arches", 2, "array"},
		{"viewer graphs duplicate arch", ViewerGraphs, rep(viewerGraphs, `["amd64","arm64"]`, `["amd64","arm64","amd64"]`), "/arches", 2, "equal"},
		{"viewer graphs bad arch", ViewerGraphs, rep(viewerGraphs, `["amd64","arm64"]`, `["amd64","arm64","ARM64"]`), "/arches/2", 2, "architecture"},
		{"viewer graphs bad channel", ViewerGraphs, rep(viewerGraphs, `"stable-4.16"],`, `"stable-4.16","Stable 4.16"],`), "/channels/2", 2, "channel name"},
		{"viewer graph missing path", ViewerGraphs, rep(viewerGraphs, `"path":"graph/arm64/stable-4.16.json",`, ""), "/graphs/1", 5, "missing properties: 'path'"},
		{"viewer graph missing conditionalEdges", ViewerGraphs, rep(viewerGraphs, `,"conditionalEdges":0}`, "}"), "/graphs/1", 5, "missing properties: 'conditionalEdges'"},
		{"viewer graph with versions", ViewerGraphs, rep(viewerGraphs, `"conditionalEdges":0}`, `"conditionalEdges":0,"versions":["4.16.0"]}`), "/graphs/1/versions", 5, `"versions" is not allowed`},
		{"viewer graph nodes a string", ViewerGraphs, rep(viewerGraphs, `"nodes":5`, `"nodes":"5"`), "/graphs/1/nodes", 5, "integer"},
		{"viewer graph nodes fractional", ViewerGraphs, rep(viewerGraphs, `"nodes":5`, `"nodes":5.5`), "/graphs/1/nodes", 5, "integer"},
		{"viewer graph negative edges", ViewerGraphs, rep(viewerGraphs, `"edges":9`, `"edges":-1`), "/graphs/1/edges", 5, ">= 0"},
		{"viewer graph path outside graph/", ViewerGraphs, rep(viewerGraphs, `"graph/arm64/stable-4.16.json"`, `"index.json"`), "/graphs/1/path", 5, "graph/<arch>/<channel>.json"},
		{"viewer graph escaping path", ViewerGraphs, rep(viewerGraphs, `"graph/arm64/stable-4.16.json"`, `"graph/../stable-4.16.json"`), "/graphs/1/path", 5, "relative path"},
		{"viewer graph channel not in channels", ViewerGraphs, rep(viewerGraphs, `{"channel":"stable-4.16"`, `{"channel":"stable-4.15"`), "/graphs/1/channel", 5, "not in channels"},
		{"viewer graph arch not in arches", ViewerGraphs, rep(viewerGraphs, `["amd64","arm64"]`, `["amd64"]`), "/graphs/1/arch", 5, "not in arches"},
		{"viewer graphs duplicate key", ViewerGraphs, rep(viewerGraphs, `"format":1,`, `"format":1,"format":1,`), "/format", 1, "duplicate key"},
		{"demo viewer graphs missing edges", ViewerGraphs, rep(demoViewerGraphs, `"nodes":3,"edges":3,`, `"nodes":3,`), "/graphs/0", 1, "missing properties: 'edges'"},
		{"demo viewer graphs extra key", ViewerGraphs, rep(demoViewerGraphs, `{"format":1,`, `{"format":1,"counts":{},`), "/counts", 1, `"counts" is not allowed`},
		{"demo viewer graphs channels not a list", ViewerGraphs, rep(demoViewerGraphs, `"channels":["candidate-4.15","candidate-4.16","fast-4.15","fast-4.16","stable-4.15","stable-4.16"]`, `"channels":"candidate-4.15"`), "/channels", 1, "array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			validate := Validate
			if c.kind == BlockedEdge || c.kind == Channel {
				validate = ValidateYAML
			}
			ps, err := validate(c.kind, []byte(c.doc))
			if err != nil {
				t.Fatalf("%v\n%s", err, c.doc)
			}
			found := false
			for _, p := range ps {
				if p.Pointer != c.pointer {
					t.Errorf("unexpected problem %s", p)
				}
				if p.Pointer == c.pointer && p.Line == c.line && strings.Contains(p.Message, c.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("want a problem at %q, line %d, containing %q; got %v\n%s", c.pointer, c.line, c.want, ps, c.doc)
			}
		})
	}
}

// TestYAMLLines: lines of mapping members are their keys' lines; merged
// and aliased values are followed.
func TestYAMLLines(t *testing.T) {
	doc := "base: &b\n  type: Always\nto: 4.1.0\nfrom: .*\nurl: https://x.example/\nname: N\nmessage: m\nmatchingRules:\n- *b\n- <<: *b\n  type: PromQL\n"
	ps, err := ValidateYAML(BlockedEdge, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	// Rule 1 is merged from an Always rule but overrides its type: a
	// PromQL rule without promql, reported on its line.
	if len(ps) != 1 || ps[0].Pointer != "/matchingRules/1" || ps[0].Line != 10 {
		t.Errorf("got %v", ps)
	}
	ps, _ = ValidateYAML(Channel, nil)
	if len(ps) != 1 || ps[0].Pointer != "" || ps[0].Line != 1 {
		t.Errorf("empty document: %v", ps)
	}
}

// TestJSONLines: pointers through escaped keys, "~" and "/" in keys, and
// nested arrays find the line their value starts on.
func TestJSONLines(t *testing.T) {
	doc := `{
  "4.1.0": {
    "a~b/c": 1,
    "\u0075rl": true,
    "release.openshift.io/architecture":
      "amd64"
  },
  "4.2.0": {"k": [
    1]}
}`
	ps, err := Validate(RawMetadata, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"/4.1.0/release.openshift.io~1architecture": 6,
		"/4.2.0/k":       8,
		"/4.1.0/a~0b~1c": 3,
		"/4.1.0/url":     4,
	}
	for _, p := range ps {
		if l, ok := want[p.Pointer]; !ok || l != p.Line {
			t.Errorf("unexpected %s", p)
		}
		delete(want, p.Pointer)
	}
	if len(want) > 0 {
		t.Errorf("missing problems at %v; got %v", want, ps)
	}
}

// TestConcurrent: the compiled schemas are shared read-only.
func TestConcurrent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(demo, "graph-data", "blocked-edges", "4.16.2-ExampleEtcdRisk.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []Problem)
	for range 8 {
		go func() {
			ps, _ := ValidateYAML(BlockedEdge, []byte(strings.Replace(string(data), "https://", "http://", 1)))
			done <- ps
		}()
	}
	for range 8 {
		if ps := <-done; len(ps) != 1 || ps[0].Pointer != "/url" {
			t.Errorf("got %v", ps)
		}
	}
}
