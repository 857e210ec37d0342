package cvo

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
)

// Fixtures follow the upstream cincinnati_test.go: images and errata URLs are
// derived from the version.

func img(v string) string    { return "quay.io/openshift-release-dev/ocp-release:" + v }
func errata(v string) string { return "https://example.com/errata/" + v }

// nodeJSON renders a graph node with the given raw metadata members.
func nodeJSON(v, meta string) string {
	return fmt.Sprintf(`{"version":%q,"payload":%q,"metadata":{%s}}`, v, img(v), meta)
}

// stdNode is an upstream-style node with url and channels metadata.
func stdNode(v, channels string) string {
	return nodeJSON(v, fmt.Sprintf(`"url":%q,"io.openshift.upgrades.graph.release.channels":%q`, errata(v), channels))
}

func graphJSON(nodes []string, extra string) string {
	s := `{"nodes":[` + strings.Join(nodes, ",") + `]`
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

func cond(from, to string, risks ...string) string {
	return fmt.Sprintf(`{"edges":[{"from":%q,"to":%q}],"risks":[%s]}`, from, to, strings.Join(risks, ","))
}

func riskJSON(name, rules string) string {
	return fmt.Sprintf(`{"url":"https://example.com/bug/%s","name":%q,"message":"%s breaks things.","matchingRules":[%s]}`, name, name, name, rules)
}

func rel(v string, channels ...string) Release {
	return Release{Version: v, Image: img(v), URL: errata(v), Channels: channels}
}

func risk(name string, rules ...MatchingRule) Risk {
	return Risk{URL: "https://example.com/bug/" + name, Name: name, Message: name + " breaks things.", MatchingRules: rules}
}

const (
	proxyQuery = `max(cluster_proxy_enabled{type=~"https?"})`
	promRule   = `{"type":"PromQL","promql":{"promql":"max(cluster_proxy_enabled{type=~\"https?\"})"}}`
	alwaysRule = `{"type":"Always"}`
	chanAB     = "test-channel,channel-a"
)

var (
	promQL = MatchingRule{Type: "PromQL", PromQL: proxyQuery}
	always = MatchingRule{Type: "Always"}
	bugA   = risk("BugA", promQL)
	bugB   = risk("BugB", always)
)

// fourNodes is the upstream "two updates available" graph: 4.1.0 → 4.1.1,
// 4.1.2; 4.1.1 → 4.1.2; 4.1.2 → 4.1.3.
var fourNodes = []string{
	stdNode("4.1.0", chanAB), stdNode("4.1.1", chanAB),
	stdNode("4.1.2", "test-channel"), stdNode("4.1.3", "test-channel"),
}

type updatesCase struct {
	name                     string
	version                  string
	desiredArch, currentArch string // both default to amd64
	graph                    string
	current                  Release
	updates                  []Release
	conditional              []ConditionalUpdate
	reason                   string // expected Error.Reason, "" for success
	message                  string // substring of Error.Message
}

var current410 = rel("4.1.0", "channel-a", "test-channel")

// upstreamCases translate pkg/cincinnati/cincinnati_test.go TestGetUpdates
// and Test_nodeUnmarshalJSON.
var upstreamCases = []updatesCase{{
	name:    "one update available",
	version: "4.1.0",
	graph:   graphJSON([]string{stdNode("4.1.0", chanAB), stdNode("4.1.1", "test-channel")}, `"edges":[[0,1]]`),
	current: current410,
	updates: []Release{rel("4.1.1", "test-channel")},
}, {
	name:    "two updates available",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"edges":[[0,1],[0,2],[1,2],[2,3]]`),
	current: current410,
	updates: []Release{rel("4.1.1", "channel-a", "test-channel"), rel("4.1.2", "test-channel")},
}, {
	name:    "no updates available",
	version: "4.1.0-0.okd-0",
	graph: graphJSON([]string{stdNode("4.1.0-0.okd-0", chanAB), stdNode("4.1.1", "test-channel"),
		stdNode("4.1.2", "test-channel")}, `"edges":[[1,2]]`),
	current: rel("4.1.0-0.okd-0", "channel-a", "test-channel"),
}, {
	name:        "conditional updates available",
	version:     "4.1.0",
	graph:       graphJSON(fourNodes, `"edges":[[0,1],[0,2],[1,2],[2,3]],"conditionalEdges":[`+cond("4.1.0", "4.1.3", riskJSON("BugA", promRule), riskJSON("BugB", alwaysRule))+`]`),
	current:     current410,
	updates:     []Release{rel("4.1.1", "channel-a", "test-channel"), rel("4.1.2", "test-channel")},
	conditional: []ConditionalUpdate{{Release: rel("4.1.3", "test-channel"), Risks: []Risk{bugA, bugB}}},
}, {
	name:    "conditional updates available, but have no recognized rules",
	version: "4.1.0",
	graph: graphJSON([]string{stdNode("4.1.0", chanAB), stdNode("4.1.1", chanAB)},
		`"conditionalEdges":[`+cond("4.1.0", "4.1.1", riskJSON("BugA", promRule), riskJSON("BugB", `{"type":"does-not-exist"}`))+`]`),
	current: current410,
}, {
	name:    "conditional updates available, and overlap with unconditional edge",
	version: "4.1.0",
	graph: graphJSON([]string{stdNode("4.1.0", chanAB), stdNode("4.1.1", "test-channel")},
		`"edges":[[0,1]],"conditionalEdges":[`+cond("4.1.0", "4.1.1", riskJSON("BugA", promRule))+`]`),
	current:     current410,
	conditional: []ConditionalUpdate{{Release: rel("4.1.1", "test-channel"), Risks: []Risk{bugA}}},
}, {
	name:    "multiple conditional updates with a single target",
	version: "4.1.0",
	graph: graphJSON([]string{stdNode("4.1.0", chanAB), stdNode("4.1.1", "test-channel")},
		`"conditionalEdges":[`+cond("4.1.0", "4.1.1", riskJSON("BugA", promRule))+","+cond("4.1.0", "4.1.1", riskJSON("BugB", alwaysRule))+`]`),
	current: current410,
}, {
	name:    "condition with risks after invalid risk",
	version: "4.1.0",
	graph: graphJSON([]string{stdNode("4.1.0", chanAB), stdNode("4.1.1", "test-channel")},
		`"conditionalEdges":[`+cond("4.1.0", "4.1.1", riskJSON("BugA", `{"type":"does-not-exist"}`), riskJSON("BugB", alwaysRule))+`]`),
	current: current410,
}, {
	name:    "unknown version",
	version: "4.1.0",
	graph:   graphJSON([]string{stdNode("4.1.1", chanAB)}, ""),
	reason:  "VersionNotFound",
	message: `currently reconciling cluster version 4.1.0 not found in the "test-channel" channel`,
}, {
	// The oldest upstream graph: a prerelease and its build-metadata twin
	// are distinct targets.
	name:    "two prerelease updates, one with build metadata",
	version: "4.0.0-5",
	graph: graphJSON([]string{nodeJSON("4.0.0-4", ""), nodeJSON("4.0.0-5", ""), nodeJSON("4.0.0-6", ""), nodeJSON("4.0.0-6+2", "")},
		`"edges":[[0,1],[1,2],[1,3]]`),
	current: Release{Version: "4.0.0-5", Image: img("4.0.0-5")},
	updates: []Release{{Version: "4.0.0-6", Image: img("4.0.0-6")}, {Version: "4.0.0-6+2", Image: img("4.0.0-6+2")}},
}, {
	name:    "v-prefixed node version fails the whole graph",
	version: "4.0.0-5",
	graph:   graphJSON([]string{nodeJSON("4.0.0-5", ""), nodeJSON("v4.0.0-0.1", "")}, ""),
	reason:  "ResponseInvalid",
	message: `Invalid character(s) found in major number "v4"`,
}, {
	name:    "dashed node version fails the whole graph",
	version: "4.0.0-5",
	graph:   graphJSON([]string{nodeJSON("4.0.0-5", ""), nodeJSON("4-0-0+0.1", "")}, ""),
	reason:  "ResponseInvalid",
	message: "No Major.Minor.Patch elements found",
}}

func TestUpdatesUpstream(t *testing.T) { runUpdates(t, upstreamCases) }

func runUpdates(t *testing.T, cases []updatesCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			desired, currentArch := tc.desiredArch, tc.currentArch
			if desired == "" {
				desired = "amd64"
			}
			if currentArch == "" {
				currentArch = "amd64"
			}
			cur, updates, conditional, err := Updates([]byte(tc.graph), "test-channel", desired, currentArch, semver.MustParse(tc.version))
			checkError(t, err, tc.reason, tc.message)
			if !reflect.DeepEqual(cur, tc.current) {
				t.Errorf("current:\n got %+v\nwant %+v", cur, tc.current)
			}
			if !reflect.DeepEqual(updates, tc.updates) {
				t.Errorf("updates:\n got %+v\nwant %+v", updates, tc.updates)
			}
			if !reflect.DeepEqual(conditional, tc.conditional) {
				t.Errorf("conditional updates:\n got %+v\nwant %+v", conditional, tc.conditional)
			}
		})
	}
}

func checkError(t *testing.T, err error, reason, message string) {
	t.Helper()
	if reason == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *cvo.Error with reason %s", err, err, reason)
	}
	if e.Reason != reason || !strings.Contains(e.Message, message) {
		t.Fatalf("error = %q, want reason %s and message containing %q", err, reason, message)
	}
}

// behaviourCases pin down CVO behaviour the upstream tests do not cover.
var behaviourCases = []updatesCase{{
	name:    "leading zero in a node version fails the whole graph",
	version: "4.1.0",
	graph:   graphJSON([]string{stdNode("4.1.0", chanAB), stdNode("4.01.1", chanAB)}, ""),
	reason:  "ResponseInvalid",
	message: "leading zeroes",
}, {
	name:    "response is not JSON",
	version: "4.1.0",
	graph:   "<html>",
	reason:  "ResponseInvalid",
}, {
	name:    "unknown fields ignored and keys matched case-insensitively",
	version: "4.1.0",
	graph:   `{"version":1,"extra":true,"NODES":[` + fourNodes[0] + "," + fourNodes[1] + `],"Edges":[[0,1]]}`,
	current: current410,
	updates: []Release{rel("4.1.1", "channel-a", "test-channel")},
}, {
	name:    "edge with 3 fields",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"edges":[[0,1,2]]`),
	reason:  "ResponseInvalid",
	message: "expected 2 fields, found 3",
}, {
	name:    "edge destination out of range",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"edges":[[0,1],[0,7]]`),
	current: current410,
	reason:  "ResponseInvalid",
	message: "invalid recommended update node: edge [0,7] points outside the 4 nodes",
}, {
	// The CVO only indexes destinations of edges leaving the current node.
	name:    "out-of-range edge from another node is ignored",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"edges":[[0,1],[9,9]]`),
	current: current410,
	updates: []Release{rel("4.1.1", "channel-a", "test-channel")},
}, {
	name:    "duplicate edges are listed twice",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"edges":[[0,1],[0,1]]`),
	current: current410,
	updates: []Release{rel("4.1.1", "channel-a", "test-channel"), rel("4.1.1", "channel-a", "test-channel")},
}, {
	name:    "conditional edge to a missing node",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"edges":[[0,1]],"conditionalEdges":[`+cond("4.1.0", "4.1.9", riskJSON("BugB", alwaysRule))+`]`),
	current: current410,
	updates: []Release{rel("4.1.1", "channel-a", "test-channel")}, // returned alongside this error
	reason:  "ResponseInvalid",
	message: "no node for conditional update 4.1.9",
}, {
	name:    "conditional edges from other versions are ignored",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.1", "4.1.9", riskJSON("BugB", alwaysRule))+`]`),
	current: current410,
}, {
	name:    "duplicate conditional targets are all dropped, with their unconditional edge",
	version: "4.1.0",
	graph: graphJSON(fourNodes, `"edges":[[0,1],[0,2]],"conditionalEdges":[`+
		cond("4.1.0", "4.1.2", riskJSON("BugA", promRule))+","+cond("4.1.0", "4.1.2", riskJSON("BugB", alwaysRule))+`]`),
	current: current410,
	updates: []Release{rel("4.1.1", "channel-a", "test-channel")},
}, {
	name:    "duplicates are counted after pruning",
	version: "4.1.0",
	graph: graphJSON(fourNodes, `"conditionalEdges":[`+
		cond("4.1.0", "4.1.2", riskJSON("BugA", `{"type":"Unknown"}`))+","+cond("4.1.0", "4.1.2", riskJSON("BugB", alwaysRule))+`]`),
	current:     current410,
	conditional: []ConditionalUpdate{{Release: rel("4.1.2", "test-channel"), Risks: []Risk{bugB}}},
}, {
	name:        "unconditional and conditional to the same target keeps only the conditional",
	version:     "4.1.0",
	graph:       graphJSON(fourNodes, `"edges":[[0,1],[0,2]],"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugA", promRule))+`]`),
	current:     current410,
	updates:     []Release{rel("4.1.1", "channel-a", "test-channel")},
	conditional: []ConditionalUpdate{{Release: rel("4.1.2", "test-channel"), Risks: []Risk{bugA}}},
}, {
	// The overlap is removed before rules are pruned, so the target is lost.
	name:    "conditional dropped for invalid rules also hides its unconditional edge",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"edges":[[0,1],[0,2]],"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugA", `{"type":"always"}`))+`]`),
	current: current410,
	updates: []Release{rel("4.1.1", "channel-a", "test-channel")},
}, {
	name:    "Always rule with promql is invalid",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugB", `{"type":"Always","promql":{"promql":"1"}}`))+`]`),
	current: current410,
}, {
	name:    "Always rule with an empty promql object is invalid",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugB", `{"type":"Always","promql":{}}`))+`]`),
	current: current410,
}, {
	name:        "Always rule with null promql is valid",
	version:     "4.1.0",
	graph:       graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugB", `{"type":"Always","promql":null}`))+`]`),
	current:     current410,
	conditional: []ConditionalUpdate{{Release: rel("4.1.2", "test-channel"), Risks: []Risk{bugB}}},
}, {
	name:    "PromQL rule with empty query is invalid",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugA", `{"type":"PromQL","promql":{"promql":""}}`))+`]`),
	current: current410,
}, {
	name:    "PromQL rule without promql is invalid",
	version: "4.1.0",
	graph:   graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.2", riskJSON("BugA", `{"type":"PromQL"}`))+`]`),
	current: current410,
}, {
	name:    "invalid rules are pruned when a valid one remains",
	version: "4.1.0",
	graph: graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.2",
		riskJSON("BugA", `{"type":"Always","promql":{"promql":"1"}},`+promRule+`,{"type":"Other"},`+alwaysRule))+`]`),
	current:     current410,
	conditional: []ConditionalUpdate{{Release: rel("4.1.2", "test-channel"), Risks: []Risk{risk("BugA", promQL, always)}}},
}, {
	// No risk has empty rules, so nothing triggers the drop.
	name:        "conditional update without risks is kept",
	version:     "4.1.0",
	graph:       graphJSON(fourNodes, `"conditionalEdges":[`+cond("4.1.0", "4.1.2")+`]`),
	current:     current410,
	conditional: []ConditionalUpdate{{Release: rel("4.1.2", "test-channel")}},
}, {
	name:    "build metadata: current matches by precedence, conditional from must be exact",
	version: "4.1.0",
	graph: graphJSON([]string{nodeJSON("4.1.0+amd64", ""), nodeJSON("4.1.1+amd64", ""), nodeJSON("4.1.2+amd64", "")},
		`"edges":[[0,1]],"conditionalEdges":[`+cond("4.1.0+amd64", "4.1.2+amd64", riskJSON("BugB", alwaysRule))+`]`),
	current: Release{Version: "4.1.0+amd64", Image: img("4.1.0+amd64")},
	updates: []Release{{Version: "4.1.1+amd64", Image: img("4.1.1+amd64")}},
}, {
	name:        "single to multi migration offers only the current version",
	version:     "4.1.0",
	desiredArch: "Multi",
	graph:       graphJSON([]string{nodeJSON("4.1.0", `"release.openshift.io/architecture":"multi"`), nodeJSON("4.1.1", `"release.openshift.io/architecture":"multi"`)}, `"edges":[[0,1]]`),
	current:     Release{Version: "4.1.0", Image: img("4.1.0"), Architecture: "Multi"},
	updates:     []Release{{Version: "4.1.0", Image: img("4.1.0"), Architecture: "Multi"}},
}, {
	name:        "multi cluster gets normal updates",
	version:     "4.1.0",
	desiredArch: "Multi",
	currentArch: "Multi",
	graph:       graphJSON([]string{nodeJSON("4.1.0", `"release.openshift.io/architecture":"multi"`), nodeJSON("4.1.1", `"release.openshift.io/architecture":"multi"`)}, `"edges":[[0,1]]`),
	current:     Release{Version: "4.1.0", Image: img("4.1.0"), Architecture: "Multi"},
	updates:     []Release{{Version: "4.1.1", Image: img("4.1.1"), Architecture: "Multi"}},
}, {
	name:    "current node with a single-arch architecture value is invalid",
	version: "4.1.0",
	graph:   graphJSON([]string{nodeJSON("4.1.0", `"url":"https://example.com/errata/4.1.0","release.openshift.io/architecture":"amd64"`)}, ""),
	current: Release{Version: "4.1.0", Image: img("4.1.0"), URL: errata("4.1.0")},
	reason:  "ResponseInvalid",
	message: `invalid current node: unrecognized release.openshift.io/architecture value "amd64"`,
}, {
	name:    "current node with an empty channel entry is invalid",
	version: "4.1.0",
	graph:   graphJSON([]string{stdNode("4.1.0", "b,,a")}, ""),
	current: rel("4.1.0", "a", "b"),
	reason:  "ResponseInvalid",
	message: `invalid current node: io.openshift.upgrades.graph.release.channels entry 1 is an empty string: "b,,a"`,
}, {
	name:    "update node with a non-string url is invalid",
	version: "4.1.0",
	graph:   graphJSON([]string{stdNode("4.1.0", chanAB), nodeJSON("4.1.1", `"url":5`)}, `"edges":[[0,1]]`),
	current: current410,
	reason:  "ResponseInvalid",
	message: "invalid recommended update node: URL is not a string: 5",
}}

func TestUpdatesBehaviour(t *testing.T) { runUpdates(t, behaviourCases) }

func TestParseMetadata(t *testing.T) {
	for _, tc := range []struct {
		name string
		meta map[string]any
		want Release
		err  string
	}{
		{name: "nil metadata", meta: nil},
		{name: "all keys", meta: map[string]any{"url": "https://e.x/1", MetadataArchitecture: "multi", MetadataChannels: "b,a"},
			want: Release{URL: "https://e.x/1", Architecture: "Multi", Channels: []string{"a", "b"}}},
		{name: "unparsable url", meta: map[string]any{"url": "http://[::1"}, err: "invalid release URL: parse"},
		{name: "empty channels", meta: map[string]any{MetadataChannels: ""}, err: "io.openshift.upgrades.graph.release.channels is an empty string"},
		{name: "only commas", meta: map[string]any{MetadataChannels: ","},
			err: "io.openshift.upgrades.graph.release.channels entry 1 is an empty string: \",\"\n" +
				"io.openshift.upgrades.graph.release.channels entry 0 is an empty string: \",\"\n" +
				"no non-empty channels in io.openshift.upgrades.graph.release.channels []"},
		{name: "non-string channels", meta: map[string]any{MetadataChannels: []any{"a"}}, err: "io.openshift.upgrades.graph.release.channels is not a string: [a]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMetadata(tc.meta)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
				t.Fatalf("error = %v, want prefix %q", err, tc.err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestURL(t *testing.T) {
	const id = "01234567-0123-0123-0123-0123456789ab"
	for _, tc := range []struct {
		name, upstream, channel string
		want                    string
		reason                  string
	}{
		{name: "default upstream", upstream: "https://api.openshift.com/api/upgrades_info/v1/graph", channel: "stable-4.16",
			want: "https://api.openshift.com/api/upgrades_info/v1/graph?arch=amd64&channel=stable-4.16&id=" + id + "&version=4.16.3"},
		{name: "existing query kept, repeated keys sent twice, keys sorted", upstream: "https://example.com/graph?version=9.9.9&z=1&arch=s390x", channel: "fast-4.16",
			want: "https://example.com/graph?arch=s390x&arch=amd64&channel=fast-4.16&id=" + id + "&version=9.9.9&version=4.16.3&z=1"},
		{name: "path used verbatim", upstream: "http://127.0.0.1:8080/graphs/stable-4.16.json", channel: "stable-4.16",
			want: "http://127.0.0.1:8080/graphs/stable-4.16.json?arch=amd64&channel=stable-4.16&id=" + id + "&version=4.16.3"},
		{name: "values are escaped", upstream: "https://example.com/", channel: "a b&c",
			want: "https://example.com/?arch=amd64&channel=a+b%26c&id=" + id + "&version=4.16.3"},
		{name: "no upstream", upstream: "", reason: "NoUpstream"},
		{name: "invalid upstream", upstream: "http://[::1", reason: "InvalidURI"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := URL(tc.upstream, "amd64", tc.channel, id, "4.16.3")
			checkError(t, err, tc.reason, "")
			if tc.reason != "" {
				return
			}
			if got := u.String(); got != tc.want {
				t.Errorf("URL =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}
