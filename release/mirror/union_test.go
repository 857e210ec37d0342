package mirror

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/cputime"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

func TestRestore(t *testing.T) {
	for _, tc := range []struct{ served, arch, want string }{
		{"4.16.0", "amd64", "4.16.0+amd64"},
		{"4.12.0", "multi", "4.12.0+multi"},
		{"4.2.10-s390x", "s390x", "4.2.10-s390x+s390x"},
		// The arch filter only strips identifiers equal to the arch, so
		// others must stay for the version to be served as it was.
		{"4.1.0+foo", "amd64", "4.1.0+foo.amd64"},
	} {
		if got := restore(version.MustParse(tc.served), tc.arch); got != tc.want {
			t.Errorf("restore(%s, %s) = %s, want %s", tc.served, tc.arch, got, tc.want)
		}
	}
}

// node is a served release in the given channels.
func node(v, channels string) string {
	return fmt.Sprintf(`{"version":%q,"payload":"p/%s","metadata":{"io.openshift.upgrades.graph.release.channels":%q}}`, v, v, channels)
}

func risk(name string) string {
	return fmt.Sprintf(`{"url":"https://example.com/%s","name":%q,"message":"m","matchingRules":[{"type":"Always"}]}`, name, name)
}

func cond(risks string, edges ...string) string {
	var es []string
	for _, e := range edges {
		from, to, _ := strings.Cut(e, ">")
		es = append(es, fmt.Sprintf(`{"from":%q,"to":%q}`, from, to))
	}
	return fmt.Sprintf(`{"edges":[%s],"risks":[%s]}`, strings.Join(es, ","), risks)
}

func doc(nodes []string, edges string, conds ...string) string {
	return fmt.Sprintf(`{"version":1,"nodes":[%s],"edges":%s,"conditionalEdges":[%s]}`, strings.Join(nodes, ","), edges, strings.Join(conds, ","))
}

// TestUnion merges answers given per channel (arch amd64) and checks the
// conditional groups, or the error.
func TestUnion(t *testing.T) {
	abcd := []string{node("4.1.0", "a"), node("4.1.1", "a"), node("4.2.0", "a"), node("4.2.1", "a")}
	tests := []struct {
		name    string
		answers map[string]string // channel → answer
		// groups are the expected conditional groups, as "edges risks".
		groups  []string
		wantErr string
		wantIs  error
	}{{
		name: "regrouped by risk list",
		answers: map[string]string{"a": doc(abcd, "[[0,1]]",
			cond(risk("R1"), "4.1.0>4.2.0"),
			cond(risk("R1"), "4.1.1>4.2.0"), // same list in a second entry: one group
			cond(risk("R1")+","+risk("R2"), "4.1.0>4.2.1"),
			cond(risk("R1"), "4.1.1>4.2.1"), // one edge in two entries: all its risks
			cond(risk("R2"), "4.1.1>4.2.1"),
			cond(risk("R3")), // no edges: nothing to serve
		)},
		groups: []string{
			"4.1.0+amd64>4.2.0+amd64 4.1.1+amd64>4.2.0+amd64 [R1]",
			"4.1.0+amd64>4.2.1+amd64 4.1.1+amd64>4.2.1+amd64 [R1 R2]",
		},
	}, {
		// Edges sharing an entry's list, then merged with later entries:
		// a merge for one edge leaves the others' lists as they were.
		name: "shared lists merged per edge",
		answers: map[string]string{"a": doc(abcd, "[]",
			cond(risk("R1")+","+risk("R2"), "4.1.0>4.2.0", "4.1.1>4.2.0", "4.1.0>4.2.1", "4.1.1>4.2.1"),
			cond(risk("R3"), "4.1.0>4.2.0", "4.1.1>4.2.0"), // two edges, one merged list
			cond(risk("R2"), "4.1.0>4.2.1"),                // already there: unchanged
			cond(risk("R4")+","+risk("R1"), "4.1.1>4.2.1"),
			cond(risk("R5"), "4.1.1>4.2.1", "4.1.1>4.2.1"), // twice in one entry: once
		)},
		groups: []string{
			"4.1.0+amd64>4.2.0+amd64 4.1.1+amd64>4.2.0+amd64 [R1 R2 R3]",
			"4.1.0+amd64>4.2.1+amd64 [R1 R2]",
			"4.1.1+amd64>4.2.1+amd64 [R1 R2 R4 R5]",
		},
	}, {
		name: "edges seen in several channels are merged",
		answers: map[string]string{
			"a": doc([]string{node("4.1.0", "a,b"), node("4.2.0", "a,b")}, "[]", cond(risk("R1"), "4.1.0>4.2.0")),
			"b": doc([]string{node("4.2.0", "a,b"), node("4.1.0", "a,b")}, "[]", cond(risk("R1"), "4.1.0>4.2.0")),
		},
		groups: []string{"4.1.0+amd64>4.2.0+amd64 [R1]"},
	}, {
		name:    "conditional edge to a release not served is dropped",
		answers: map[string]string{"a": doc(abcd[:1], "[]", cond(risk("R1"), "4.1.0>4.9.0"))},
	}, {
		name: "risks differ between channels",
		answers: map[string]string{
			"a": doc([]string{node("4.1.0", "a,b"), node("4.2.0", "a,b")}, "[]", cond(risk("R1"), "4.1.0>4.2.0")),
			"b": doc([]string{node("4.1.0", "a,b"), node("4.2.0", "a,b")}, "[]", cond(risk("R2"), "4.1.0>4.2.0")),
		},
		wantErr: "conditional edge 4.1.0+amd64 -> 4.2.0+amd64 (arch amd64) has risks [R1] in channel a but [R2] in channel b",
		wantIs:  ErrInconsistent,
	}, {
		name: "edges differ between channels",
		answers: map[string]string{
			"a": doc([]string{node("4.1.0", "a,b"), node("4.2.0", "a,b")}, "[[0,1]]"),
			"b": doc([]string{node("4.1.0", "a,b"), node("4.2.0", "a,b")}, "[]"),
		},
		wantErr: "channel b, arch amd64: http://e/?channel=b&arch=amd64 served 0 edges and 0 conditional edges, but its releases have 1 and 0",
		wantIs:  ErrInconsistent,
	}, {
		name: "a release missing from a channel its metadata lists",
		answers: map[string]string{
			"a": doc([]string{node("4.1.0", "a,b")}, "[]"),
			"b": doc(nil, "[]"),
		},
		wantErr: "channel b, arch amd64: release 4.1.0+amd64, served in channel a, lists this channel in its metadata, but http://e/?channel=b&arch=amd64 did not serve it",
		wantIs:  ErrInconsistent,
	}, {
		name:    "channels metadata that does not list the channel",
		answers: map[string]string{"a": doc([]string{node("4.1.0", "")}, "[]")},
		wantErr: `served release 4.1.0+amd64, but its io.openshift.upgrades.graph.release.channels metadata ("") does not list the channel`,
	}, {
		name: "a cycle across answers",
		answers: map[string]string{
			"a": doc([]string{node("4.1.0", "a,b"), node("4.2.0", "a,b")}, "[[0,1]]"),
			"b": doc([]string{node("4.1.0", "a,b"), node("4.2.0", "a,b")}, "[[1,0]]"),
		},
		wantErr: "union of the fetched graphs: update graph would contain a cycle: 4.1.0+amd64 -> 4.2.0+amd64 -> 4.1.0+amd64",
		wantIs:  ErrInconsistent,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnion(slog.New(slog.DiscardHandler))
			err := func() error {
				for _, ch := range []string{"a", "b"} {
					body, ok := tc.answers[ch]
					if !ok {
						continue
					}
					j := job{channel: ch, arch: "amd64", url: requestURL("http://e/", ch, "amd64")}
					d, err := decode(j.url, []byte(body))
					if err != nil {
						t.Fatal(err)
					}
					if err := u.add(j, d); err != nil {
						return err
					}
				}
				_, err := u.finish()
				return err
			}()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := groupStrings(u.g.Conditional); !reflect.DeepEqual(got, tc.groups) {
					t.Errorf("groups\n got  %q\n want %q", got, tc.groups)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %q is not %v", err, tc.wantIs)
			}
		})
	}
}

func groupStrings(groups []graph.ConditionalEdge) []string {
	var out []string
	for _, g := range groups {
		var parts []string
		for _, e := range g.Edges {
			parts = append(parts, e.From+">"+e.To)
		}
		out = append(out, strings.Join(parts, " ")+" "+fmt.Sprint(riskNames(g.Risks)))
	}
	return out
}

// unionOf merges one answer (channel a, arch amd64) and finishes.
func unionOf(t *testing.T, body string) error {
	t.Helper()
	u := newUnion(slog.New(slog.DiscardHandler))
	j := job{channel: "a", arch: "amd64", url: requestURL("http://e/", "a", "amd64")}
	d, err := decode(j.url, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := u.add(j, d); err != nil {
		return err
	}
	_, err = u.finish()
	return err
}

// manyRisks is an answer of n releases 4.1.i, each with a conditional
// edge to 4.2.0, and n risks named prefix<i>.
func manyRisks(n int) (nodes, edges, risks []string) {
	for i := range n {
		nodes = append(nodes, node(fmt.Sprintf("4.1.%d", i), "a"))
		edges = append(edges, fmt.Sprintf("4.1.%d>4.2.0", i))
		risks = append(risks, risk(fmt.Sprintf("R%d", i)))
	}
	return append(nodes, node("4.2.0", "a")), edges, risks
}

// TestUnionLinear: merging an answer's conditional edges costs time
// linear in the answer. Before, each edge had its own copy of its
// entry's risks, and a risk merged from a second entry was compared with
// every risk of the list: 3,000 edges of one entry of 3,000 risks, or one
// edge in two entries of 3,000 risks (answers of about 0.7 and 0.9 MB),
// took 8.1 and 28.6 s of CPU; now 0.07 s each.
func TestUnionLinear(t *testing.T) {
	const n = 3000
	nodes, edges, risks := manyRisks(n)
	var others []string
	for i := range n {
		others = append(others, risk(fmt.Sprintf("S%d", i)))
	}
	for name, body := range map[string]string{
		"one entry":               doc(nodes, "[]", cond(strings.Join(risks, ","), edges...)),
		"one edge in two entries": doc(nodes, "[]", cond(strings.Join(risks, ","), edges[0]), cond(strings.Join(others, ","), edges[0])),
	} {
		t.Run(name, func(t *testing.T) {
			cpu := cputime.Process()
			if err := unionOf(t, body); err != nil {
				t.Fatal(err)
			}
			used := cputime.Process() - cpu
			t.Logf("%d bytes: %v of CPU", len(body), used)
			if limit := 3 * time.Second; used > limit {
				t.Fatalf("%v of CPU, more than %v: quadratic in the edges or risks?", used, limit)
			}
		})
	}
}

// TestUnionRiskListBound: an answer whose edges each merge a long list
// with a short one of their own, which would serve the long list once per
// edge, is refused naming the URL and the bound.
func TestUnionRiskListBound(t *testing.T) {
	const n = 520 // 520 edges × 521 risks > maxListRisks
	nodes, edges, risks := manyRisks(n)
	conds := []string{cond(strings.Join(risks, ","), edges...)}
	for i, e := range edges {
		conds = append(conds, cond(risk(fmt.Sprintf("S%d", i)), e))
	}
	err := unionOf(t, doc(nodes, "[]", conds...))
	want := fmt.Sprintf("http://e/?channel=a&arch=amd64: the conditional edges' risk lists hold more than %d risks", maxListRisks)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	// The same answer with a quarter of the edges is served.
	conds = []string{cond(strings.Join(risks, ","), edges[:n/4]...)}
	for i, e := range edges[:n/4] {
		conds = append(conds, cond(risk(fmt.Sprintf("S%d", i)), e))
	}
	if err := unionOf(t, doc(nodes, "[]", conds...)); err != nil {
		t.Fatal(err)
	}
}
