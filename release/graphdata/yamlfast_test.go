package graphdata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// realGraphData is the shared snapshot of openshift/cincinnati-graph-data
// (CI clones this repository with shared/ beside it).
const realGraphData = "../../../shared/graph-data"

// sameAsYAMLv3 checks that parseSimpleYAML either declines data or
// returns the node yaml.v3 parses, in every field this package reads.
func sameAsYAMLv3(t *testing.T, name string, data []byte) (fast bool) {
	t.Helper()
	got, ok := parseSimpleYAML(data)
	if !ok {
		return false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Errorf("%s: parsed by the fast path, but yaml.v3 fails: %v", name, err)
		return true
	}
	if len(doc.Content) != 1 {
		t.Errorf("%s: parsed by the fast path, but yaml.v3 has %d nodes", name, len(doc.Content))
		return true
	}
	if d := nodeDiff(got, doc.Content[0], "$"); d != "" {
		t.Errorf("%s: fast path differs from yaml.v3: %s", name, d)
	}
	return true
}

// nodeDiff describes the first difference between a and b in Kind, Tag,
// Value, Line or Content, or returns "".
func nodeDiff(a, b *yaml.Node, at string) string {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Line != b.Line {
		return fmt.Sprintf("%s: got kind %d tag %s line %d %q, yaml.v3 kind %d tag %s line %d %q",
			at, a.Kind, a.Tag, a.Line, a.Value, b.Kind, b.Tag, b.Line, b.Value)
	}
	if len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: got %d children, yaml.v3 %d", at, len(a.Content), len(b.Content))
	}
	for i := range a.Content {
		if d := nodeDiff(a.Content[i], b.Content[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
			return d
		}
	}
	return ""
}

// TestSimpleYAMLMatchesYAMLv3 runs the fast path on documents in and out
// of its subset: whatever it accepts, yaml.v3 must parse to the same
// nodes; want says whether it must accept.
func TestSimpleYAMLMatchesYAMLv3(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      bool
	}{
		{"block", "to: 4.1.1\nfrom: .*\n", true},
		{"document start and comments", "# c\n---\n# d\nto: 4.1.1 # e\n", false},
		{"document start", "# c\n---\n\nto: 4.1.1\n  # indented comment\nfrom: ^4[.]1[.]0[+].*$\n", true},
		{"risk", `to: 4.15.0-rc.1
from: .*
fixedIn: 4.15.1
url: https://issues.redhat.com/browse/OTA-1599
name: PreRelease
message: |-
  This is a pre-release version, and you should update.

  Second paragraph.


matchingRules:
- type: Always
- type: PromQL
  promql:
    promql: |
      topk by (_id) (1,
        group by (_id, type) (x{_id=""})
      )

    # a comment inside is content
  # a comment after it is not
`, true},
		{"nested sequence", "matchingRules:\n  - type: Always\n  - type: PromQL\n    promql:\n      promql: x\n", true},
		{"channel", "feeder:\n  delay: PT48H\n  name: candidate-4.2\nname: fast-4.2\nversions:\n- 4.1.0\n- 4.1.0-rc.1\n# no 4.1.1\n- 4.2.0+amd64\n", true},
		{"quoted", "message: \"a: b 'c' #d\"\nname: 'it''s: x'\nurl: ''\n", true},
		{"clip with trailing blank lines", "message: |\n  a\n\n\nname: x\n", true},
		{"leading blank line", "message: |\n\n  a\n  b\n", true},
		{"more indented content", "message: |\n  a\n    b\n  c\n", true},
		{"key order and unknown keys", "zeta: 1.2.3\nalpha-beta_2: x.y.z\n", true},
		// Outside the subset: declined, whatever yaml.v3 makes of them.
		{"float", "to: 4.1\n", false},
		{"int", "to: 4\n", false},
		{"bool", "to: true\n", false},
		{"null", "to: null\nfrom: ~\n", false},
		{"empty value", "to:\nfrom: x\n", false},
		{"timestamp", "to: 2024-01-01\n", false},
		{"dotted timestamp-like", "to: 2024.01.01\n", true},
		{"nan", "from: .nan\n", false},
		{"inf", "from: .Inf\n", false},
		{"dot pattern", "from: .*\n", true},
		{"plain continuation", "message: a\n  b\n", false},
		{"plain continuation after blank", "message: a\n\n  b\n", false},
		{"comment after value", "to: 4.1.1 # x\n", false},
		{"colon in plain", "message: a: b\n", false},
		{"colon at end", "message: a:\n", false},
		{"folded", "message: >\n  a\n  b\n", false},
		{"keep", "message: |+\n  a\n\n", false},
		{"indent indicator", "message: |2\n   a\n", false},
		{"empty literal", "message: |\nname: x\n", false},
		{"literal blank longer than indent", "message: |\n  a\n     \n  b\n", false},
		{"leading blank longer than content", "message: |\n    \n  a\n", false},
		{"literal less indented line", "message: |\n    a\n  b\n", false},
		{"multi-line single quote", "message: 'a\n  b'\n", false},
		{"escape", "message: \"a\\tb\"\n", false},
		{"lone quote", "message: 'a'b'\n", false},
		{"two quoted", "message: 'a' 'b'\n", false},
		{"flow", "versions: [4.1.0]\n", false},
		{"anchor", "to: &a 4.1.1\n", false},
		{"alias", "to: *a\n", false},
		{"tag", "to: !!str 4.1\n", false},
		{"tab", "to:\t4.1.1\n", false},
		{"crlf", "to: 4.1.1\r\n", false},
		{"no final newline", "to: 4.1.1", false},
		{"non-ASCII", "message: caf\u00e9\n", false},
		{"not a mapping", "- 4.1.0\n", false},
		{"scalar", "4.1.0\n", false},
		{"empty", "", false},
		{"comments only", "# x\n", false},
		{"second document", "to: 4.1.1\n---\nfrom: x\n", false},
		{"document end", "to: 4.1.1\n...\n", false},
		{"indented top level", "  to: 4.1.1\n", false},
		{"over-indented key", "to: 4.1.1\n  from: x\n", false},
		{"bare dash", "versions:\n-\n- 4.1.0\n", false},
		{"wide item", "versions:\n-  4.1.0\n", false},
		{"nested sequence item", "versions:\n- - 4.1.0\n", false},
		{"indicator start", "from: -x\n", false},
		{"quoted key", "\"to\": 4.1.1\n", false},
		{"complex key", "? to\n: 4.1.1\n", false},
		{"duplicate keys", "to: 4.1.1\nto: 4.1.2\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameAsYAMLv3(t, tc.name, []byte(tc.doc)); got != tc.want {
				t.Errorf("fast path taken: %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSimpleYAMLRealGraphData: on the real graph-data snapshot, every file
// the fast path parses parses the same with yaml.v3, and nearly every file
// takes it.
func TestSimpleYAMLRealGraphData(t *testing.T) {
	var files []string
	for _, dir := range []string{"blocked-edges", "channels"} {
		m, _ := filepath.Glob(filepath.Join(realGraphData, dir, "*.yaml"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skipf("real graph-data not available at %s", realGraphData)
	}
	fast := 0
	var slow []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if sameAsYAMLv3(t, f, data) {
			fast++
		} else {
			slow = append(slow, filepath.Base(f))
		}
	}
	t.Logf("%d of %d files take the fast path; the others: %s", fast, len(files), strings.Join(slow, " "))
	if fast < len(files)*9/10 {
		t.Errorf("only %d of %d files take the fast path", fast, len(files))
	}
}
