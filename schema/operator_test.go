package schema

import (
	"strings"
	"testing"
)

const (
	opChannelGraph = `{"package":"p","channel":"stable","default":true,"head":"p.v1.1.0","nodes":[` +
		`{"name":"p.v1.1.0","version":"1.1.0","image":"quay.io/p:v1.1.0","maxOpenShiftVersion":"4.18","skippedByV0":false,"skipRange":"<1.1.0","skipRangeFrom":[[1,1]]},` +
		`{"name":"p.v1.0.0","version":"1.0.0","image":"quay.io/p:v1.0.0","skippedByV0":false}],` +
		`"edges":[{"from":"p.v1.0.0","to":"p.v1.1.0","type":"skips"},{"from":"p.v1.0.0","to":"p.v1.1.0","type":"replaces"}]}`
	opPackageGraph = `{"package":"p","defaultChannel":"stable","channels":[{"name":"stable","head":"p.v1.1.0","entries":2}],"nodes":[` +
		`{"name":"p.v1.1.0","version":"1.1.0","image":"quay.io/p:v1.1.0","skippedByV0":false,"channels":["stable"],"skipRanges":[{"range":"<1.1.0","from":[[1,1]],"channels":["stable"]}]},` +
		`{"name":"p.v1.0.0","version":"1.0.0","image":"quay.io/p:v1.0.0","skippedByV0":false,"channels":["stable"]}],` +
		`"edges":[{"from":"p.v1.0.0","to":"p.v1.1.0","type":"replaces","channels":["stable"]}]}`
	opNext = `{"package":"p","channel":"stable","installed":{"name":"p.v1.0.0","version":"1.0.0"},` +
		`"olmV0":{"semantics":"olm-v0: x","channel":"stable","head":"p.v1.1.0","next":{"name":"p.v1.1.0","version":"1.1.0","channel":"stable","via":[{"channel":"stable","type":"replaces"}]},` +
		`"pathToHead":[{"name":"p.v1.1.0","version":"1.1.0","channel":"stable","via":[{"channel":"stable","type":"replaces"}]}],"reachesHead":true},` +
		`"olmV1":{"semantics":"olm-v1: x","channels":["stable"],"candidates":[{"name":"p.v1.1.0","version":"1.1.0","via":[{"channel":"stable","type":"skipRange"}]},` +
		`{"name":"p.v1.0.0","version":"1.0.0","installed":true}],"pick":{"name":"p.v1.1.0","version":"1.1.0"}}}`
	opIndex = `{"format":1,"generator":"upgraph","generatedAt":"2023-11-14T22:13:20Z","inputs":{"graphData":{"version":"","digest":""},"releases":{"kind":"","digest":""}},` +
		`"arches":[],"channels":[],"counts":{"releases":0,"abstractReleases":0,"edges":0,"conditionalEdges":0,"graphs":0,"versionGraphs":0,"files":2,"bytes":2,"distinctFiles":1,"distinctBytes":2},"graphs":[],` +
		`"catalogs":[{"name":"community","source":"dir:configs","kind":"dir","contentDigest":"sha256:d726dda345321a5649bdc3ca4bc7184104ed0202701a1f764178d1038ea996c3",` +
		`"path":"operators/community/catalog.json","counts":{"packages":1,"channels":1,"bundles":2,"files":1},"packages":["p"]}],` +
		`"files":{"operators/community/catalog.json":{"sha256":"d726dda345321a5649bdc3ca4bc7184104ed0202701a1f764178d1038ea996c3","size":2},"operators/community/next/p/!stable/~2ex.json":{"sha256":"d726dda345321a5649bdc3ca4bc7184104ed0202701a1f764178d1038ea996c3","size":0}}}`
)

// TestOperatorDocuments: the operator catalog files' schemas and checks
// accept what catalog/views writes and refuse what it never writes.
func TestOperatorDocuments(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind Kind
		doc  string
	}{
		{"channel graph", OperatorChannelGraph, opChannelGraph},
		{"package graph", OperatorPackageGraph, opPackageGraph},
		{"next", OperatorNext, opNext},
		{"index with a catalog", Index, opIndex},
	} {
		if ps, err := Validate(tc.kind, []byte(tc.doc)); err != nil || len(ps) > 0 {
			t.Errorf("%s: %v %v", tc.name, err, ps)
		}
	}
	rep := func(doc, old, new string) string {
		if !strings.Contains(doc, old) {
			t.Fatalf("%q not in %s", old, doc)
		}
		return strings.Replace(doc, old, new, 1)
	}
	for _, tc := range []struct {
		name, pointer, want string
		kind                Kind
		doc                 string
	}{
		{"skipRange edge listed", "/edges/0/type", "", OperatorChannelGraph, rep(opChannelGraph, `"type":"skips"`, `"type":"skipRange"`)},
		{"range on an edge", "/edges/1/range", "not allowed", OperatorChannelGraph, rep(opChannelGraph, `"type":"replaces"}`, `"type":"replaces","range":"<1"}`)},
		{"skipRangeFrom without skipRange", "/nodes/0", "skipRange", OperatorChannelGraph, rep(opChannelGraph, `"skipRange":"<1.1.0",`, "")},
		{"span past the nodes", "/nodes/0/skipRangeFrom/0", "< 2", OperatorChannelGraph, rep(opChannelGraph, `[[1,1]]`, `[[1,2]]`)},
		{"spans not ascending", "/nodes/0/skipRangeFrom/1", "after the span before", OperatorChannelGraph, rep(opChannelGraph, `[[1,1]]`, `[[1,1],[0,0]]`)},
		{"span not a pair", "/nodes/0/skipRangeFrom/0", "", OperatorChannelGraph, rep(opChannelGraph, `[[1,1]]`, `[[1]]`)},
		{"package span past the nodes", "/nodes/0/skipRanges/0/from/0", "< 2", OperatorPackageGraph, rep(opPackageGraph, `[[1,1]]`, `[[0,2]]`)},
		{"package skipRange edge listed", "/edges/0/type", "", OperatorPackageGraph, rep(opPackageGraph, `"type":"replaces"`, `"type":"skipRange","range":"<1.1.0"`)},
		{"unknown edge type", "/edges/1/type", "", OperatorChannelGraph, rep(opChannelGraph, `"type":"replaces"`, `"type":"replace"`)},
		{"version not strict", "/nodes/1/version", "SemVer", OperatorChannelGraph, rep(opChannelGraph, `"version":"1.0.0"`, `"version":"v1.0.0"`)},
		{"maxOpenShiftVersion with a patch", "/nodes/0/maxOpenShiftVersion", "", OperatorChannelGraph, rep(opChannelGraph, `"4.18"`, `"4.18.1"`)},
		{"head not a node", "/head", "not a node", OperatorChannelGraph, rep(opChannelGraph, `"head":"p.v1.1.0"`, `"head":"p.v2"`)},
		{"edge into another channel", "/edges/1/to", "not a node of the channel", OperatorChannelGraph, rep(opChannelGraph, `"to":"p.v1.1.0","type":"replaces"`, `"to":"q","type":"replaces"`)},
		{"duplicate node", "/nodes/1/name", "unique", OperatorChannelGraph, rep(opChannelGraph, `"name":"p.v1.0.0","version"`, `"name":"p.v1.1.0","version"`)},
		{"unknown member", "/extra", "not allowed", OperatorChannelGraph, rep(opChannelGraph, `"default":true`, `"default":true,"extra":1`)},
		{"next without semantics label", "/olmV0/semantics", "", OperatorNext, rep(opNext, `"olm-v0: x"`, `"v0"`)},
		{"pick not an object", "/olmV1/pick", "", OperatorNext, rep(opNext, `"pick":{"name":"p.v1.1.0","version":"1.1.0"}`, `"pick":"p.v1.1.0"`)},
		{"via with a range", "/olmV1/candidates/0/via/0/range", "not allowed", OperatorNext, rep(opNext, `"type":"skipRange"}`, `"type":"skipRange","range":"<1.1.0"}`)},
		{"installed false", "/olmV1/candidates/1/installed", "", OperatorNext, rep(opNext, `"installed":true`, `"installed":false`)},
		{"path total not past a cut", "/olmV0/pathToHeadTotal", "", OperatorNext, rep(opNext, `"reachesHead":true`, `"pathToHeadTotal":1,"reachesHead":true`)},
		{"candidates total not past a cut", "/olmV1/candidatesTotal", "", OperatorNext, rep(opNext, `"candidates":[`, `"candidatesTotal":2,"candidates":[`)},
		{"catalog name not a label", "/catalogs/0/name", "DNS-1123", Index, rep(opIndex, `"name":"community"`, `"name":"Community"`)},
		{"catalog path elsewhere", "/catalogs/0/path", "is not operators/community/catalog.json", Index, rep(opIndex, `"path":"operators/community/catalog.json"`, `"path":"operators/other/catalog.json"`)},
		{"catalog summary not listed", "/catalogs/0/path", "not in files", Index, rep(opIndex, `"files":{"operators/community/catalog.json"`, `"files":{"operators/community/catalog.jsom"`)},
		{"packages miscounted", "/catalogs/0/counts/packages", "1 packages counted, 2 listed", Index, rep(opIndex, `"packages":["p"]`, `"packages":["p","q"]`)},
		{"duplicate catalog", "/catalogs/1/name", "unique", Index, rep(opIndex, `"catalogs":[`, `"catalogs":[{"name":"community","source":"dir:x","kind":"dir","contentDigest":"sha256:d726dda345321a5649bdc3ca4bc7184104ed0202701a1f764178d1038ea996c3","path":"operators/community/catalog.json","counts":{"packages":0,"channels":0,"bundles":0,"files":0},"packages":[]},`)},
		{"unknown source kind", "/catalogs/0/kind", "", Index, rep(opIndex, `"kind":"dir"`, `"kind":"git"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := Validate(tc.kind, []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range ps {
				if p.Pointer == tc.pointer && strings.Contains(p.Message, tc.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("problems %v, want one at %q mentioning %q", ps, tc.pointer, tc.want)
			}
		})
	}
}
