package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/cputime"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestCompareLinear: comparing two trees costs time linear in their
// index.json files, not in channels × arches. Two index.json files of
// 3,000 channels and 3,000 arches and one graph made 9 million pairs to
// walk, 18 million graphs to look up and lists searched once per name.
func TestCompareLinear(t *testing.T) {
	const n = 3000
	dir := t.TempDir()
	m := &manifest.Manifest{Format: manifest.Format, GeneratedAt: "2026-01-02T03:04:05Z", Files: map[string]manifest.File{}}
	for i := range n {
		m.Channels = append(m.Channels, fmt.Sprintf("stable-4.%d", i))
		m.Arches = append(m.Arches, fmt.Sprintf("arch%d", i))
	}
	graph := []byte(`{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`)
	g := manifest.Graph{Channel: m.Channels[0], Arch: m.Arches[0], Path: manifest.GraphPath(m.Arches[0], m.Channels[0])}
	m.Graphs = append(m.Graphs, g)
	m.Files[g.Path] = manifest.File{SHA256: manifest.SHA256(graph), Size: int64(len(graph))}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, g.Path)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, g.Path), graph, 0o644); err != nil {
		t.Fatal(err)
	}
	index, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), index, 0o644); err != nil {
		t.Fatal(err)
	}
	cpu := cputime.Process()
	r := compare(t, open(t, dir), open(t, dir), Options{})
	used := cputime.Process() - cpu
	t.Logf("%v of CPU", used)
	if !r.Empty() || r.Compared != 1 {
		t.Errorf("Empty %v, Compared %d; want true, 1", r.Empty(), r.Compared)
	}
	if limit := time.Second; used > limit {
		t.Errorf("%v of CPU, more than %v: quadratic in the channels and arches?", used, limit)
	}
}
