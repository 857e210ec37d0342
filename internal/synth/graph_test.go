package synth_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/release/source"
)

// TestRealGraphDataMajorHopEdges builds the real-scale graph as
// generator/realdata_test.go does (real graph-data, synthesised releases)
// and checks that candidate-5.0 offers 4.22 → 5.0 in every arch: every
// GA 4.22.z it lists updates to every 5.0 release it lists (no
// blocked edge names a 5.0 target in the snapshot).
func TestRealGraphDataMajorHopEdges(t *testing.T) {
	const realGraphData = "../../../shared/graph-data"
	if _, err := os.Stat(realGraphData); err != nil {
		t.Skipf("graph-data snapshot not available: %v", err)
	}
	gd := os.DirFS(realGraphData)
	releases, err := synth.MetadataFS(gd)
	if err != nil {
		t.Fatal(err)
	}
	b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "synthesised", FS: releases}, gd, generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	ix := policy.NewIndex(b.Graph)
	for _, arch := range []string{synth.ArchAMD64, synth.ArchARM64, synth.ArchMulti, synth.ArchPPC64LE, synth.ArchS390X} {
		v := ix.View("candidate-5.0", arch)
		var from, to []int
		for i, s := range v.Versions {
			switch {
			case strings.HasPrefix(s, "4.22.") && !strings.Contains(s, "-"):
				from = append(from, i)
			case strings.HasPrefix(s, "5.0."):
				to = append(to, i)
			}
		}
		hops := 0
		for _, e := range v.Edges {
			if slices.Contains(from, e[0]) && slices.Contains(to, e[1]) {
				hops++
			}
		}
		if len(from) == 0 || len(to) == 0 || hops != len(from)*len(to) {
			t.Errorf("candidate-5.0/%s: %d edges from the %d GA 4.22.z to the %d 5.0 releases, want %d", arch, hops, len(from), len(to), len(from)*len(to))
		} else {
			t.Logf("candidate-5.0/%s: %d nodes, %d edges, %d of them 4.22 → 5.0", arch, len(v.Versions), len(v.Edges), hops)
		}
	}
}
