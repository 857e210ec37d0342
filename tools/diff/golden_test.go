package diff

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// variant edits the demo inputs into the NEW side of a golden case.
type variant struct {
	name string
	edit func(releases, graphData fstest.MapFS)
}

// variants are the crafted changes a graph-data pull request makes.
func variants() []variant {
	return []variant{
		{"edge-blocked", func(_, gd fstest.MapFS) {
			gd["blocked-edges/4.15.2.yaml"] = file("to: 4.15.2\nfrom: 4[.]15[.]0[+].*\n")
		}},
		{"risk-added", func(_, gd fstest.MapFS) {
			gd["blocked-edges/4.16.2-ExampleNetworkRisk.yaml"] = file(`to: 4.16.2
from: 4[.]16[.].*
url: https://issues.example.com/browse/DEMO-2
name: ExampleNetworkRisk
message: OVN clusters may lose pod networking for a few minutes while updating from 4.16.
matchingRules:
- type: PromQL
  promql:
    promql: group(cluster_infrastructure_provider{type="OVNKubernetes"})
`)
		}},
		{"release-added", func(rel, gd fstest.MapFS) {
			rel["4.16.3+amd64.json"] = file(`{
  "kind": "cincinnati-metadata-v0",
  "version": "4.16.3",
  "previous": ["4.16.0", "4.16.1", "4.16.2"],
  "metadata": {"url": "https://access.redhat.com/errata/RHBA-2024:1163"},
  "payload": "quay.io/openshift-release-dev/ocp-release@sha256:3333333333333333333333333333333333333333333333333333333333333333",
  "arch": "amd64"
}`)
			// A new release enters candidate first.
			gd["channels/candidate-4.16.yaml"] = file(string(gd["channels/candidate-4.16.yaml"].Data) + "- 4.16.3\n")
		}},
		{"channel-removed", func(_, gd fstest.MapFS) {
			delete(gd, "channels/stable-4.16.yaml")
		}},
	}
}

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), Mode: 0o644} }

// TestDiffGolden diffs the demo tree against each variant in every format and
// compares with testdata/<variant>.<ext>; -update rewrites them.
func TestDiffGolden(t *testing.T) {
	rel, gd := demoInputs(t)
	old := buildTree(t, rel, gd)
	for _, v := range variants() {
		t.Run(v.name, func(t *testing.T) {
			rel, gd := demoInputs(t)
			v.edit(rel, gd)
			r := compare(t, open(t, old), open(t, buildTree(t, rel, gd)), Options{})
			r.Old, r.New = "old", "new" // temporary directories otherwise
			for f, ext := range map[Format]string{Text: "txt", Markdown: "md", JSON: "json"} {
				checkGolden(t, filepath.Join("testdata", v.name+"."+ext), render(t, r, f))
			}
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update and review):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
