package mirror

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestMirrorRoundTrip generates a tree from real inputs, serves it with
// upgraph's handler, mirrors it, and checks that the mirror serves the
// same graphs; then mirrors the mirror and checks that nothing changes
// any more, to the byte.
func TestMirrorRoundTrip(t *testing.T) {
	for _, in := range testInputs() {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			origDir := filepath.Join(base, "orig")
			start := time.Now()
			orig := generate(t, in, origDir)
			t.Logf("generated in %v", time.Since(start))
			if orig.Counts.ConditionalEdges == 0 {
				t.Fatalf("%s has no conditional edges: the test would not exercise them", in.name)
			}

			mirrorDir := filepath.Join(base, "mirror")
			start = time.Now()
			m1 := mirror(t, serve(t, origDir), orig, mirrorDir)
			t.Logf("mirrored %d graphs in %v", len(m1.Graphs), time.Since(start))
			sameGraphs(t, origDir, orig, mirrorDir, m1)

			againDir := filepath.Join(base, "again")
			m2 := mirror(t, serve(t, mirrorDir), m1, againDir)
			first, second := treeFiles(t, mirrorDir), treeFiles(t, againDir)
			if !slices.Equal(slices.Sorted(maps.Keys(first)), slices.Sorted(maps.Keys(second))) {
				t.Fatalf("mirror of the mirror has %d files, the mirror %d", len(second), len(first))
			}
			for name, b := range first {
				if !bytes.Equal(b, second[name]) {
					t.Errorf("%s differs between the mirror and the mirror of the mirror", name)
				}
			}
			if m1.Inputs.Releases != m2.Inputs.Releases {
				t.Errorf("release digests differ: %v, then %v", m1.Inputs.Releases, m2.Inputs.Releases)
			}
		})
	}
}
