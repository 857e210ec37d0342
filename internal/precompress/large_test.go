package precompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// TestGzipLargeGraph checks a large channel graph's copy: klauspost/compress's,
// with the fixed header naming it, read back by Go's decoder and by the
// gzip program, the same bytes every time (one writer reused for other
// files, or a new one; one CPU or several, concurrently), and matched by
// MatchesFile only with its file.
func TestGzipLargeGraph(t *testing.T) {
	graphs := syntheticGraphs(rand.New(rand.NewPCG(7, 8)), 6, 100, 600)
	var large [][]byte
	for _, g := range graphs {
		if len(g) >= LargeGraph {
			large = append(large, g)
		}
	}
	if len(large) < 3 {
		t.Fatalf("%d large graphs of %d", len(large), len(graphs))
	}
	const name = "graph/amd64/stable-4.16.json"
	data := large[0]
	gz := GzipFile(name, data)
	// RFC 1952: magic, CM 8, FLG FCOMMENT, MTIME 0, XFL 0, OS 255, the
	// comment.
	want := append([]byte{0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 0, 255}, "upgraph klauspost/compress/gzip "+KlauspostVersion+" level 6\x00"...)
	if !bytes.HasPrefix(gz, want) {
		t.Errorf("header %q, want %q", gz[:min(len(gz), len(want))], want)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("round trip: %v, %d bytes of %d", err, len(got), len(data))
	}
	if zr.Header.Comment != Comment(name, len(data)) || !zr.Header.ModTime.IsZero() || zr.Header.OS != 255 || zr.Header.Name != "" {
		t.Errorf("header %+v", zr.Header)
	}
	gzipProgram(t, gz, data)
	if !bytes.Equal(gz, shared.GzipFile(nil, name, data)) || !bytes.Equal(gz, GzipFile("rollout/7/"+name, data)) {
		t.Error("a channel graph's copy differs from its bucket's or the shared pool's")
	}
	if std := Gzip(data); bytes.Equal(std, gz) || MatchesFile(name, std, data) || !Matches(std, data) || Matches(gz, data) {
		t.Error("a large graph's copy and compress/gzip's are not told apart")
	}
	if !MatchesFile(name, gz, data) || MatchesFile(name, gz, large[1]) || MatchesFile(name, gz, data[1:]) || MatchesFile("operators/c/all.jsonl", gz, data) {
		t.Error("MatchesFile: a large graph's copy matches another file or not its own")
	}

	// One copy of each, from a new pool (fresh writers), is what every
	// other way of compressing them gives.
	fresh := make([][]byte, len(large))
	for i, g := range large {
		var c Compressors
		fresh[i] = c.GzipFile(nil, name, g)
	}
	var reused Compressors
	for round := range 3 {
		for i, g := range large {
			if c := reused.GzipFile(nil, name, g); !bytes.Equal(c, fresh[i]) {
				t.Fatalf("round %d, graph %d: a reused writer gives other bytes", round, i)
			}
		}
	}
	for _, procs := range []int{1, runtime.NumCPU() + 1} {
		prev := runtime.GOMAXPROCS(procs)
		var wg sync.WaitGroup
		out := make([][]byte, 4*len(large))
		for i := range out {
			wg.Go(func() { out[i] = shared.GzipFile(nil, name, large[i%len(large)]) })
		}
		wg.Wait()
		runtime.GOMAXPROCS(prev)
		for i, c := range out {
			if !bytes.Equal(c, fresh[i%len(large)]) {
				t.Fatalf("GOMAXPROCS %d: concurrent copy %d differs", procs, i)
			}
		}
	}
}

// TestGzipFileCompressor checks which compressor makes which copy: large
// channel graphs (a bucket's too) klauspost/compress's, every other file
// (per-version graphs of any size included) compress/gzip's.
func TestGzipFileCompressor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		size  int
		large bool
	}{
		{"graph/amd64/stable-4.16.json", LargeGraph, true},
		{"graph/amd64/stable-4.16/4.16.1.json", LargeGraph + 1, false},
		{"rollout/12/graph/amd64/stable-4.16/4.16.1.json", 1 << 20, false},
		{"rollout/12/graph/amd64/stable-4.16.json", 1 << 20, true},
		{"graph/amd64/stable-4.16.json", LargeGraph - 1, false},
		{"graph/empty.json", 58, false},
		{"operators/cat/all.jsonl", 1 << 20, false},
		{"operators/cat/metas/package/p.jsonl", LargeGraph, false},
		{"rollout/x/graph/amd64/stable-4.16.json", 1 << 20, false},
	} {
		data := bytes.Repeat([]byte("{}"), tc.size/2+tc.size%2)[:tc.size]
		gz := GzipFile(tc.name, data)
		want := gzipComment
		if tc.large {
			want = largeComment
		}
		if c := Comment(tc.name, tc.size); c != want {
			t.Errorf("Comment(%q, %d) = %q, want %q", tc.name, tc.size, c, want)
		}
		if !bytes.Contains(gz[:len(want)+12], []byte(want+"\x00")) || !MatchesFile(tc.name, gz, data) {
			t.Errorf("%s of %d bytes: the copy does not name %q or does not match", tc.name, tc.size, want)
		}
		if !tc.large && !bytes.Equal(gz, Gzip(data)) {
			t.Errorf("%s of %d bytes: not compress/gzip's copy", tc.name, tc.size)
		}
	}
}

// TestKlauspostVersion checks that the version large graphs' copies name
// is the one go.mod requires and the binary is built with: upgrading
// klauspost/compress may change the copies' bytes, so it must change
// their comment (and Identity) too.
func TestKlauspostVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/klauspost/compress (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require github.com/klauspost/compress")
	}
	if string(m[1]) != KlauspostVersion {
		t.Errorf("go.mod requires klauspost/compress %s, KlauspostVersion is %s", m[1], KlauspostVersion)
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/klauspost/compress" && d.Version != KlauspostVersion && d.Replace == nil {
				t.Errorf("built with klauspost/compress %s, KlauspostVersion is %s", d.Version, KlauspostVersion)
			}
		}
	}
}
