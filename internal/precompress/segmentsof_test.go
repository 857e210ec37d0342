package precompress

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestSegmentsOf checks that SegmentsOf gives each segment's compressed
// bytes, which compressing its part alone gives (so a copy made of them
// in order is the copy), and refuses a copy of another kind or a table
// that does not add up.
func TestSegmentsOf(t *testing.T) {
	data, cuts := parts(rand.New(rand.NewPCG(5, 6)), []int{50, 60, 70})
	gz, segs := GzipSegmented(nil, data, cuts, nil)
	got := SegmentsOf(gz, segs)
	if len(got) != len(segs) {
		t.Fatalf("%d segments, want %d", len(got), len(segs))
	}
	start := 0
	for i := range got {
		end := len(data)
		if i < len(cuts) {
			end = cuts[i]
		}
		if want := compressSegment(nil, data[start:end]); !bytes.Equal(got[i], want) {
			t.Errorf("segment %d: not its part compressed alone", i)
		}
		start = end
	}
	k := 0
	again, _ := GzipSegmented(nil, data, cuts, func([]byte) []byte { k++; return got[k-1] })
	if !bytes.Equal(again, gz) {
		t.Error("the segments reused in order do not make the copy")
	}
	bigger := append([]Segment(nil), segs...)
	bigger[0].Compressed++
	for name, segments := range map[string][][]byte{
		"unsegmented copy":   SegmentsOf(Gzip(data), segs),
		"table too short":    SegmentsOf(gz, segs[:len(segs)-1]),
		"sizes not matching": SegmentsOf(gz, bigger),
		"truncated":          SegmentsOf(gz[:len(gz)-9], segs),
	} {
		if segments != nil {
			t.Errorf("%s: segments given", name)
		}
	}
}
