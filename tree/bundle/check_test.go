package bundle

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/cputime"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestManifestProblemsBounded: an index.json listing n channels, n arches
// and n graphs of channels it does not list has problems, and a time to
// find them, linear in n: the pairs without a graph are named up to
// maxNamed and the rest counted, and a graph of an unlisted channel is
// named without the whole channel list. Before, 300 of each made 90,000
// "no graph" problems and 300 messages of 300 channels each; 20,000 of
// each would make 400 million.
func TestManifestProblemsBounded(t *testing.T) {
	for _, n := range []int{300, 20000} {
		m := &manifest.Manifest{
			GeneratedAt: "2026-01-02T03:04:05Z",
			Files:       map[string]manifest.File{manifest.EmptyGraphPath: {SHA256: manifest.SHA256([]byte(manifest.EmptyGraph)), Size: int64(len(manifest.EmptyGraph))}},
		}
		for i := range n {
			m.Channels = append(m.Channels, fmt.Sprintf("stable-4.%d", i))
			m.Arches = append(m.Arches, fmt.Sprintf("arch%d", i))
			g := manifest.Graph{Channel: fmt.Sprintf("unlisted-%d", i), Arch: "arch0"}
			g.Path = manifest.GraphPath(g.Arch, g.Channel)
			m.Graphs = append(m.Graphs, g)
			m.Files[g.Path] = manifest.File{SHA256: strings.Repeat("0", 64), Size: 1}
		}
		m.Counts = manifest.Counts{Graphs: n, Files: n + 2, Bytes: int64(n + len(manifest.EmptyGraph)), DistinctFiles: 1}
		cpu := cputime.Process()
		ps := ManifestProblems(m)
		used := cputime.Process() - cpu
		t.Logf("n = %d: %d problems, %v of CPU", n, len(ps), used)
		noGraph := 0
		for _, p := range ps {
			if len(p.Reason) > 200 {
				t.Fatalf("n = %d: a problem of %d bytes: %.200s…", n, len(p.Reason), p.Reason)
			}
			if strings.HasPrefix(p.Reason, "no graph for") {
				noGraph++
			}
		}
		if want := maxNamed + 1; noGraph != want {
			t.Errorf("n = %d: %d problems of pairs without a graph, want %d (named, then counted)", n, noGraph, want)
		}
		if last := ps[len(ps)-1].Reason; last != fmt.Sprintf("no graph for %d more channel and arch pairs", n*n-maxNamed) {
			t.Errorf("n = %d: last problem %q", n, last)
		}
		if len(ps) > n+maxNamed+1 {
			t.Errorf("n = %d: %d problems, want at most %d (one per graph, then the pairs)", n, len(ps), n+maxNamed+1)
		}
		if limit := 2 * time.Second; used > limit {
			t.Errorf("n = %d: %v of CPU, more than %v", n, used, limit)
		}
	}
}
