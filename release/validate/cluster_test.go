package validate

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/source"
)

// TestValidateClusterMessages: the findings about what clusters do name
// the name, both files of a divergent risk and the graph they share.
func TestValidateClusterMessages(t *testing.T) {
	ps := Validate(tree(map[string]string{
		"blocked-edges/4.16.1-Example_Risk.yaml": strings.Replace(riskYAML, "name: ExampleRisk", "name: Example_Risk", 1),
		"blocked-edges/4.16.2-Example_Risk.yaml": strings.NewReplacer("to: 4.16.1", "to: 4.16.2", "name: ExampleRisk", "name: Example_Risk", "https://issues.example.com/1", "https://issues.example.com/2").Replace(riskYAML),
		"channels/candidate-4.16.yaml":           channelYAML("candidate-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2"),
	}), Options{Releases: versions(t, "4.15.0+amd64", "4.16.0+amd64", "4.16.1+amd64", "4.16.2+amd64")})
	want := map[string][]string{
		"L-risk-name-pattern": {"risk name Example_Risk does not match ^[A-Z][A-Za-z0-9.-]*$"},
		"L-risk-divergent": {
			"risk Example_Risk differs in url from blocked-edges/4.16.1-Example_Risk.yaml:4",
			"served in channel candidate-4.16, arch amd64 (edges 4.16.0 → 4.16.2 here, 4.16.0 → 4.16.1 there)",
			"highest target version",
		},
	}
	got := map[string]int{}
	for _, p := range ps {
		got[p.Rule]++
		for _, s := range want[p.Rule] {
			if !strings.Contains(p.Message, s) {
				t.Errorf("%s: message lacks %q", p, s)
			}
		}
	}
	if got["L-risk-name-pattern"] != 2 || got["L-risk-divergent"] != 1 || got["B14"] != 1 || len(ps) != 4 {
		t.Errorf("got %v, want 2 L-risk-name-pattern, 1 L-risk-divergent and 1 B14:\n\t%s", got, strings.Join(texts(ps), "\n\t"))
	}
}

// TestValidateMultiArchSynthesised runs L-multi-arch on the options
// ReleaseOptions takes from releases read as upgraph reads them: synth's
// multi releases are right; one whose metadata says "Multi" is not.
func TestValidateMultiArchSynthesised(t *testing.T) {
	gd := tree(nil)
	releases, err := synth.MetadataFS(gd)
	if err != nil {
		t.Fatal(err)
	}
	options := func() Options {
		g, err := (&source.MetadataDir{Dir: "synthesised", FS: releases}).Graph(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return ReleaseOptions(g)
	}
	opts := options()
	if len(opts.Releases) != 15 || len(opts.Architectures) != 3 || opts.Architectures["4.16.1+multi"] != "multi" {
		t.Fatalf("%d releases, architectures %v; want 15 releases, multi for the 3 multi ones", len(opts.Releases), opts.Architectures)
	}
	if ps := Validate(gd, opts); len(ps) > 0 {
		t.Errorf("want no problems, got\n\t%s", strings.Join(texts(ps), "\n\t"))
	}
	f := releases["4.16.1+multi.json"]
	f.Data = bytes.Replace(f.Data, []byte(`"release.openshift.io/architecture": "multi"`), []byte(`"release.openshift.io/architecture": "Multi"`), 1)
	ps := Validate(gd, options())
	if got := briefs(ps); len(got) != 1 || got[0] != "channels/candidate-4.16.yaml:5 error L-multi-arch" {
		t.Errorf("got\n\t%s\nwant channels/candidate-4.16.yaml:5 error L-multi-arch", strings.Join(texts(ps), "\n\t"))
	}
}
