package cvo

import (
	"errors"
	"reflect"
	"testing"

	"github.com/blang/semver/v4"
)

func snapshot(t *testing.T, body string) Snapshot {
	t.Helper()
	return Canonical(Updates([]byte(body), "test-channel", "amd64", "amd64", semver.MustParse("4.1.0")))
}

func TestCanonicalIgnoresGraphOrder(t *testing.T) {
	risks := `"conditionalEdges":[` + cond("4.1.0", "4.1.3", riskJSON("BugA", promRule), riskJSON("BugB", alwaysRule)) + "," +
		cond("4.1.0", "4.1.2", riskJSON("BugB", alwaysRule)) + `]`
	a := graphJSON(fourNodes, `"edges":[[0,1],[0,2],[1,2]],`+risks)
	// Same graph: nodes permuted, edges re-indexed and reordered, channel
	// list reordered, conditional entries swapped.
	b := graphJSON([]string{stdNode("4.1.3", "test-channel"), stdNode("4.1.1", "channel-a,test-channel"),
		stdNode("4.1.0", "channel-a,test-channel"), stdNode("4.1.2", "test-channel")},
		`"edges":[[1,3],[2,1],[2,3]],"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugB", alwaysRule))+","+
			cond("4.1.0", "4.1.3", riskJSON("BugA", promRule), riskJSON("BugB", alwaysRule))+`]`)
	sa, sb := snapshot(t, a), snapshot(t, b)
	if !reflect.DeepEqual(sa, sb) {
		t.Fatalf("snapshots differ:\n%s\nvs\n%s", sa, sb)
	}
	want := Snapshot{
		Current: current410,
		Updates: []Release{rel("4.1.1", "channel-a", "test-channel")},
		ConditionalUpdates: []ConditionalUpdate{
			{Release: rel("4.1.3", "test-channel"), Risks: []Risk{bugA, bugB}},
			{Release: rel("4.1.2", "test-channel"), Risks: []Risk{bugB}},
		},
	}
	if !reflect.DeepEqual(sa, want) {
		t.Errorf("snapshot:\n%s\nwant\n%s", sa, want)
	}
}

func TestCanonicalRiskOrderMatters(t *testing.T) {
	a := graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.3", riskJSON("BugA", promRule), riskJSON("BugB", alwaysRule))+`]`)
	b := graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.3", riskJSON("BugB", alwaysRule), riskJSON("BugA", promRule))+`]`)
	if sa, sb := snapshot(t, a), snapshot(t, b); sa.String() == sb.String() {
		t.Errorf("risk order was normalised away:\n%s", sa)
	}
}

func TestCanonicalString(t *testing.T) {
	s := Canonical(
		Release{Version: "4.1.0", Image: "img:0", Channels: []string{}},
		[]Release{{Version: "4.1.0-rc.1", Image: "img:rc"}, {Version: "4.1.10", Image: "img:10"}, {Version: "4.1.2", Image: "img:2"}},
		[]ConditionalUpdate{{Release: Release{Version: "4.2.0", Image: "img:420"}, Risks: []Risk{risk("BugA", promQL)}}},
		nil)
	want := `current: 4.1.0 image="img:0" url="" arch="" channels=[]
update: 4.1.10 image="img:10" url="" arch="" channels=[]
update: 4.1.2 image="img:2" url="" arch="" channels=[]
update: 4.1.0-rc.1 image="img:rc" url="" arch="" channels=[]
conditional: 4.2.0 image="img:420" url="" arch="" channels=[]
  risk "BugA" url="https://example.com/bug/BugA" message="BugA breaks things."
    rule PromQL promql="max(cluster_proxy_enabled{type=~\"https?\"})"
`
	if got := s.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if s.Current.Channels != nil {
		t.Errorf("empty channels not normalised to nil")
	}
}

func TestCanonicalError(t *testing.T) {
	// The CVO drops current and updates on any error.
	got := Canonical(current410, []Release{current410}, nil, &Error{Reason: "ResponseInvalid", Message: "no node for conditional update 4.1.9"})
	want := Snapshot{Error: "ResponseInvalid: no node for conditional update 4.1.9"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := Canonical(Release{}, nil, nil, errors.New("boom")).String(); got != "error: boom\n" {
		t.Errorf("String() = %q", got)
	}
}
