package diff

import (
	"strings"
	"testing"
)

// doc builds a served graph document from compact parts.
func doc(nodes, edges, conditional string) string {
	return `{"version":1,"nodes":[` + nodes + `],"edges":[` + edges + `],"conditionalEdges":[` + conditional + `]}`
}

func node(v, payload, metadata string) string {
	return `{"version":"` + v + `","payload":"` + payload + `","metadata":{` + metadata + `}}`
}

const (
	etcd    = `{"url":"u","name":"Etcd","message":"m","matchingRules":[{"type":"Always"}]}`
	etcdURL = `{"url":"u2","name":"Etcd","message":"m","matchingRules":[{"type":"Always"}]}`
	etcdQL  = `{"url":"u","name":"Etcd","message":"m","matchingRules":[{"type":"PromQL","promql":{"promql":"up"}},{"type":"Always"}]}`
	netRisk = `{"url":"n","name":"Net","message":"two\nlines","matchingRules":[{"type":"Always"}]}`
)

// TestDiffCompareGraphs covers what the demo variants do not: payload and
// metadata key changes, risk field changes, conflicting risk definitions,
// and that node order, edge order and conditional grouping do not count.
func TestDiffCompareGraphs(t *testing.T) {
	two := node("4.1.0", "p0", `"a":"1"`) + "," + node("4.1.1", "p1", "")
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"reordered", doc(two, "[0,1]", ""),
			doc(node("4.1.1", "p1", "")+","+node("4.1.0", "p0", `"a":"1"`), "[1,0]", ""), ""},
		{"regrouped conditional edges",
			doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcd+`,`+netRisk+`]}`),
			doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+netRisk+`]},{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcd+`]}`), ""},
		{"payload and metadata",
			doc(two, "[0,1]", ""),
			doc(node("4.1.0", "p0new", `"b":"2"`)+","+node("4.1.1", "p1", `"io.openshift.upgrades.graph.release.channels":"a,b"`), "[0,1]", ""),
			`~ node 4.1.0
-   payload: p0
+   payload: p0new
-   metadata a: "1"
+   metadata b: "2"
~ node 4.1.1
+   metadata io.openshift.upgrades.graph.release.channels: "a,b"
`},
		{"channel list reordered only",
			doc(node("4.1.0", "p", `"io.openshift.upgrades.graph.release.channels":"a,b"`), "", ""),
			doc(node("4.1.0", "p", `"io.openshift.upgrades.graph.release.channels":"b,a"`), "", ""),
			`~ node 4.1.0
-   metadata io.openshift.upgrades.graph.release.channels: "a,b"
+   metadata io.openshift.upgrades.graph.release.channels: "b,a"
`},
		{"edges in version order", doc(node("4.1.9", "a", "")+","+node("4.1.10", "b", "")+","+node("4.2.0", "c", ""), "[0,2]", ""),
			doc(node("4.1.9", "a", "")+","+node("4.1.10", "b", "")+","+node("4.2.0", "c", ""), "[1,2],[0,1]", ""),
			`+ edge 4.1.9 → 4.1.10
- edge 4.1.9 → 4.2.0
+ edge 4.1.10 → 4.2.0
`},
		{"risk url", doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcd+`]}`),
			doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcdURL+`]}`),
			`~ risk Etcd
-   url: u
+   url: u2
`},
		{"risk rules", doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcd+`]}`),
			doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcdQL+`]}`),
			`~ risk Etcd
-   matchingRules[0]: Always
+   matchingRules[0]: PromQL "up"
+   matchingRules[1]: Always
`},
		{"conflicting definitions", doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcd+`]}`),
			doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcd+`]},{"edges":[{"from":"4.1.1","to":"4.1.0"}],"risks":[`+etcdURL+`]}`),
			`+ conditional edge 4.1.1 → 4.1.0: Etcd
~ risk Etcd
-   definition: {"url":"u","name":"Etcd","message":"m","matchingRules":[{"type":"Always"}]}
+   definition: {"url":"u","name":"Etcd","message":"m","matchingRules":[{"type":"Always"}]}
+   definition: {"url":"u2","name":"Etcd","message":"m","matchingRules":[{"type":"Always"}]}
`},
		{"risk removed with its edge", doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+etcd+`,`+netRisk+`]}`),
			doc(two, "[0,1]", ""),
			`+ edge 4.1.0 → 4.1.1 (was conditional)
- conditional edge 4.1.0 → 4.1.1: Etcd, Net
- risk Etcd
- risk Net
`},
		{"message with a line break stays on one line", doc(two, "", ""),
			doc(two, "", `{"edges":[{"from":"4.1.0","to":"4.1.1"}],"risks":[`+netRisk+`]}`),
			`+ conditional edge 4.1.0 → 4.1.1: Net
+ risk Net
+   url: n
+   message: "two\nlines"
+   matchingRules[0]: Always
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, err := decode("old", []byte(tc.old))
			if err != nil {
				t.Fatal(err)
			}
			new, err := decode("new", []byte(tc.new))
			if err != nil {
				t.Fatal(err)
			}
			g := compareGraphs("c", "a", old, new)
			if g.empty() != (tc.want == "") {
				t.Errorf("empty() = %v", g.empty())
			}
			var b strings.Builder
			for _, l := range g.lines() {
				writeLine(&b, l, "")
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestDiffDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ doc, err string }{
		{`[]`, "cannot unmarshal"},
		{`{"nodes":[],"edges":[]}`, `no "version" key`},
		{`{"version":2,"nodes":[],"edges":[]}`, "format version 2"},
		{doc(`{"version":"4.1.0"}`, "", ""), "want version and payload"},
		{doc(node("4.1.0", "p", "")+","+node("4.1.0", "q", ""), "", ""), "duplicate version 4.1.0"},
		{doc(node("4.1.0", "p", ""), "[0,1]", ""), "not a pair of node indices"},
		{doc(node("4.1.0", "p", ""), "[0]", ""), "not a pair of node indices"},
	} {
		if _, err := decode("x", []byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("decode(%s): err %v, want %q", tc.doc, err, tc.err)
		}
	}
}

func TestDiffCompareVersions(t *testing.T) {
	want := []string{"4.9.0", "4.16.0-rc.1", "4.16.0", "4.16.9", "4.16.10", "4.17.0", "not-semver-a", "not-semver-b"}
	got := sortVersions([]string{"not-semver-b", "4.16.10", "4.17.0", "4.16.0", "not-semver-a", "4.16.9", "4.9.0", "4.16.0-rc.1"})
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestDiffMarkdownEscaping: names and messages cannot break out of the code
// spans, table cells and code blocks they are put in.
func TestDiffMarkdownEscaping(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(string) string
		in   string
		want string
	}{
		{"code", code, "dir", "`dir`"},
		{"code with a backtick", code, "a`b", "``a`b``"},
		{"code starting with one", code, "`a", "`` `a ``"},
		{"cell", cell, "a|b<c>", `a\|b&lt;c&gt;`},
		{"fence", fenceFor, "plain", "```"},
		{"fence around a fence", fenceFor, "x\n````\n", "`````"},
	} {
		if got := tc.f(tc.in); got != tc.want {
			t.Errorf("%s(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
