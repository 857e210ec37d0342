package generator

import (
	"crypto/sha256"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// TestSameCuts: a previous segmented copy is carried over only when its
// segments are the parts the file is cut into now.
func TestSameCuts(t *testing.T) {
	for _, tc := range []struct {
		name string
		segs [][2]int64
		cuts []int
		size int
		want bool
	}{
		{"same", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{10, 30}, 35, true},
		{"other cut", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{11, 30}, 35, false},
		{"one segment more", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{10}, 35, false},
		{"other size", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{10, 30}, 36, false},
		{"no table", nil, []int{10}, 20, false},
	} {
		if got := sameCuts(tc.segs, tc.cuts, tc.size); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPartInputs: the digest of a part of a segmented file names its
// blobs by their package's digest and their place among its blobs, so
// that two parts of the same package at other places, or of a changed
// package, differ, and a blob without identity leaves its part unnamed.
func TestPartInputs(t *testing.T) {
	blob := func(s string) declcfg.Meta { return declcfg.Meta{Blob: []byte(s)} }
	// p's blobs, q's, then p's again: runs of the same sizes.
	metas := []declcfg.Meta{blob(`"p0"`), blob(`"p1"`), blob(`"q0"`), blob(`"p2"`), blob(`"p3"`), blob(`"x"`)}
	lines := []int32{0, 1, 2, 3, 4}
	cuts := []int{10, 15} // after p1, after q0
	sum := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }
	ids := &blobIdentities{sums: [][]byte{sum("p"), sum("q")},
		group: []int32{0, 0, 1, 0, 0, -1}, pos: []int32{0, 1, 0, 2, 3, 0}}
	got := ids.partInputs(metas, lines, cuts)
	if len(got) != 3 || got[0] == "" || got[1] == "" || got[2] == "" {
		t.Fatalf("parts %q, want three named", got)
	}
	if got[0] == got[2] {
		t.Error("p's blobs 0-1 and 2-3 have the same digest")
	}
	if again := ids.partInputs(metas, lines, cuts); !slices.Equal(again, got) {
		t.Errorf("again %q, first %q", again, got)
	}
	changed := &blobIdentities{sums: [][]byte{sum("p changed"), sum("q")}, group: ids.group, pos: ids.pos}
	if c := changed.partInputs(metas, lines, cuts); c[0] == got[0] || c[1] != got[1] || c[2] == got[2] {
		t.Errorf("p changed: parts %q, were %q: want p's parts only changed", c, got)
	}
	// A blob of no package of the model: its part is unnamed.
	withX := ids.partInputs(metas, []int32{0, 1, 2, 5}, cuts)
	if len(withX) != 3 || withX[0] != got[0] || withX[1] != got[1] || withX[2] != "" {
		t.Errorf("with a blob without identity: %q", withX)
	}
	if odd := ids.partInputs(metas, lines, []int{11}); odd != nil {
		t.Errorf("a cut inside a blob: %q, want nil", odd)
	}
}
