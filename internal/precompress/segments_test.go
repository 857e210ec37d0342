package precompress

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"testing"
)

// parts makes n pseudo-random JSON lines per part, compressible as
// catalogs are, and returns their concatenation with the cuts between
// parts.
func parts(r *rand.Rand, sizes []int) (data []byte, cuts []int) {
	for i, n := range sizes {
		if i > 0 {
			cuts = append(cuts, len(data))
		}
		for range n {
			data = fmt.Appendf(data, `{"schema":"olm.bundle","package":"p%d","name":"p%d.v%d","image":"quay.io/x@sha256:%x"}`+"\n",
				i, i, r.IntN(1000), r.Uint64())
		}
	}
	return data, cuts
}

func gunzip(t *testing.T, gz []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Header.Comment != SegmentedIdentity {
		t.Errorf("comment %q, want %q", zr.Header.Comment, SegmentedIdentity)
	}
	return got
}

// TestGzipSegmented checks that a segmented copy is one gzip member that
// Go's decoder and the gzip program (zlib's inflate) read back, that
// reusing the segments of a previous copy gives the same bytes as
// compressing everything, and that only equal parts are reused.
func TestGzipSegmented(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name  string
		sizes []int
	}{
		{"one part", []int{300}},
		{"three parts", []int{300, 1, 2000}},
		{"many small", []int{1, 1, 1, 1, 1, 1, 1}},
		{"large", []int{5000, 40000, 700}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, cuts := parts(r, tc.sizes)
			gz, segs := GzipSegmented(nil, data, cuts, nil)
			if len(segs) != len(cuts)+1 {
				t.Fatalf("%d segments for %d cuts", len(segs), len(cuts))
			}
			if got := gunzip(t, gz); !bytes.Equal(got, data) {
				t.Fatal("Go's gzip does not read the content back")
			}
			if !MatchesSegmented(gz, data) || Matches(gz, data) || MatchesSegmented(Gzip(data), data) {
				t.Error("MatchesSegmented and Matches do not tell the two kinds of copy apart")
			}
			again, _ := GzipSegmented(nil, data, cuts, nil)
			if !bytes.Equal(again, gz) {
				t.Fatal("two compressions differ")
			}
			gzipProgram(t, gz, data)

			// Change the middle part (or the only one): the others are
			// reused, the bytes are a fresh compression's.
			changedAt := len(cuts) / 2
			next := bytes.Clone(data)
			at := 0
			if changedAt > 0 {
				at = cuts[changedAt-1]
			}
			next[at+40] ^= 1 // inside the package name's digit or its neighbours
			reuse := SegmentedReuse(gz, data, segs)
			if reuse == nil {
				t.Fatal("SegmentedReuse refuses a copy it made")
			}
			reused := 0
			counting := func(part []byte) []byte {
				b := reuse(part)
				if b != nil {
					reused++
				}
				return b
			}
			inc, incSegs := GzipSegmented(nil, next, cuts, counting)
			fresh, freshSegs := GzipSegmented(nil, next, cuts, nil)
			if !bytes.Equal(inc, fresh) || fmt.Sprint(incSegs) != fmt.Sprint(freshSegs) {
				t.Fatal("reusing segments gives other bytes than compressing every one")
			}
			if reused != len(cuts) {
				t.Errorf("%d segments reused, want %d", reused, len(cuts))
			}
			if got := gunzip(t, inc); !bytes.Equal(got, next) {
				t.Fatal("Go's gzip does not read the regenerated copy back")
			}
			gzipProgram(t, inc, next)
		})
	}
}

// TestSegmentedReuseRefuses checks that a copy of other content, of
// another kind or with a table that does not add up reuses nothing.
func TestSegmentedReuseRefuses(t *testing.T) {
	data, cuts := parts(rand.New(rand.NewPCG(3, 4)), []int{50, 60, 70})
	gz, segs := GzipSegmented(nil, data, cuts, nil)
	short := segs[:len(segs)-1]
	bigger := append([]Segment(nil), segs...)
	bigger[0].Compressed++
	for name, reuse := range map[string]func([]byte) []byte{
		"other content":      SegmentedReuse(gz, data[1:], segs),
		"unsegmented copy":   SegmentedReuse(Gzip(data), data, segs),
		"table too short":    SegmentedReuse(gz, data, short),
		"sizes not matching": SegmentedReuse(gz, data, bigger),
		"truncated":          SegmentedReuse(gz[:len(gz)-9], data, segs),
	} {
		if reuse != nil {
			t.Errorf("%s: reused", name)
		}
	}
}

// gzipProgram checks gz with the gzip program (gzip -t, then zcat's
// output), which inflates with its own decoder.
func gzipProgram(t *testing.T, gz, data []byte) {
	t.Helper()
	path, err := exec.LookPath("gzip")
	if err != nil {
		t.Skip("no gzip program")
	}
	test := exec.Command(path, "-t")
	test.Stdin = bytes.NewReader(gz)
	if out, err := test.CombinedOutput(); err != nil {
		t.Fatalf("gzip -t: %v: %s", err, out)
	}
	cat := exec.Command(path, "-dc")
	cat.Stdin = bytes.NewReader(gz)
	out, err := cat.Output()
	if err != nil {
		t.Fatalf("gzip -dc: %v", err)
	}
	if !bytes.Equal(out, data) {
		t.Fatal("gzip -dc does not give the content back")
	}
}
