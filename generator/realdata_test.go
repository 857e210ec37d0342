package generator_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cvo"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/version"
	"github.com/upgraph/upgraph/tree/writer"
)

// servedGraph is a served graph file, decoded loosely for invariant checks.
type servedGraph struct {
	Version int `json:"version"`
	Nodes   []struct {
		Version  string            `json:"version"`
		Payload  string            `json:"payload"`
		Metadata map[string]string `json:"metadata"`
	} `json:"nodes"`
	Edges            [][2]int `json:"edges"`
	ConditionalEdges []struct {
		Edges []struct{ From, To string } `json:"edges"`
	} `json:"conditionalEdges"`
}

// TestRealGraphData renders every channel × arch of the real graph-data
// with synthesised releases and checks the invariants clusters rely on, and
// that each per-version file gives a cluster the same answer as the full
// channel file.
func TestRealGraphData(t *testing.T) {
	b := buildReal(t)
	out := filepath.Join(t.TempDir(), "tree")
	m, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: out}, GeneratedAt: time.Unix(0, 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Channels) != 76 || len(m.Arches) != 5 || m.Counts.Graphs != 380 {
		t.Fatalf("channels %d, arches %v, graphs %d; want 76, 5, 380", len(m.Channels), m.Arches, m.Counts.Graphs)
	}
	checkManifestFiles(t, out, m)

	blocks := blockIndex(b.GraphData)
	var answers sync.Map // per-version file digest → cvo.Snapshot
	var versionsChecked, updatesSeen, conditionalSeen atomic.Int64
	for _, ge := range m.Graphs {
		t.Run(ge.Channel+"/"+ge.Arch, func(t *testing.T) {
			t.Parallel()
			body := readFile(t, out, ge.Path)
			var sg servedGraph
			if err := json.Unmarshal(body, &sg); err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, b.Graph, blocks, ge, &sg)
			full, err := cvo.Parse(body)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range ge.Versions {
				cur := semver.MustParse(v)
				want := cvo.Canonical(full.Updates(ge.Channel, "", "", cur))
				name := path.Join("graph", ge.Arch, ge.Channel, manifest.VersionFileName(v))
				// Identical files (by digest) give identical answers; each
				// distinct one is parsed once.
				got, ok := answers.Load(m.Files[name].SHA256)
				if !ok {
					perVersion := readFile(t, out, name)
					got = cvo.Canonical(cvo.Updates(perVersion, ge.Channel, "", "", cur))
					answers.Store(m.Files[name].SHA256, got)
				}
				if got := got.(cvo.Snapshot); !reflect.DeepEqual(got, want) {
					t.Fatalf("version %s: per-version file answers\n%s\nchannel file answers\n%s", v, got, want)
				}
				versionsChecked.Add(1)
				updatesSeen.Add(int64(len(want.Updates)))
				conditionalSeen.Add(int64(len(want.ConditionalUpdates)))
			}
		})
	}
	t.Cleanup(func() {
		t.Logf("checked %d per-version files: %d updates, %d conditional updates", versionsChecked.Load(), updatesSeen.Load(), conditionalSeen.Load())
		if versionsChecked.Load() != int64(m.Counts.VersionGraphs) || updatesSeen.Load() == 0 || conditionalSeen.Load() == 0 {
			t.Errorf("equivalence check was vacuous: %d of %d versions, %d updates, %d conditional",
				versionsChecked.Load(), m.Counts.VersionGraphs, updatesSeen.Load(), conditionalSeen.Load())
		}
	})
}

// block is a blocked edge or risk, for the "no edge into a blocked target"
// invariant.
type block struct {
	file string
	to   version.Version
	from interface{ MatchString(string) bool }
}

func blockIndex(gd *graphdata.GraphData) map[string][]block {
	ix := map[string][]block{}
	for _, b := range gd.Blocks {
		ix[b.To.Key()] = append(ix[b.To.Key()], block{b.File, b.To, b.From})
	}
	for _, r := range gd.Risks {
		ix[r.To.Key()] = append(ix[r.To.Key()], block{r.File, r.To, r.From})
	}
	return ix
}

// applies reports whether a block names the release with full version to.
func (b block) applies(to version.Version) bool {
	switch {
	case b.to.Build() != "":
		return b.to.String() == to.String()
	case b.to.Pre() == "s390x":
		return to.Build() == "s390x"
	}
	return true
}

func checkInvariants(t *testing.T, g *graph.Graph, blocks map[string][]block, ge manifest.Graph, sg *servedGraph) {
	t.Helper()
	if sg.Version != 1 || len(sg.Nodes) != ge.Nodes || len(sg.Edges) != ge.Edges {
		t.Fatalf("file has version %d, %d nodes, %d edges; index says %d nodes, %d edges", sg.Version, len(sg.Nodes), len(sg.Edges), ge.Nodes, ge.Edges)
	}
	full := make([]string, len(sg.Nodes))
	present := map[string]bool{}
	for i, n := range sg.Nodes {
		if _, ok := n.Metadata[graph.KeyArch]; ok {
			t.Errorf("node %s still carries the arch key", n.Version)
		}
		full[i] = n.Version + "+" + ge.Arch
		if _, ok := g.Lookup(full[i]); !ok {
			t.Fatalf("node %s is not release %s of the graph", n.Version, full[i])
		}
		present[n.Version] = true
	}
	// Acyclic (Kahn), and no edge into a blocked target from a matching source.
	indeg := make([]int, len(sg.Nodes))
	out := make([][]int, len(sg.Nodes))
	unconditional := map[[2]string]bool{}
	for _, e := range sg.Edges {
		out[e[0]] = append(out[e[0]], e[1])
		indeg[e[1]]++
		from, to := full[e[0]], version.MustParse(full[e[1]])
		unconditional[[2]string{sg.Nodes[e[0]].Version, sg.Nodes[e[1]].Version}] = true
		for _, b := range blocks[to.Key()] {
			if b.applies(to) && b.from.MatchString(from) {
				t.Errorf("edge %s -> %s survives %s", from, to, b.file)
			}
		}
	}
	var queue []int
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, i)
		}
	}
	for seen := 0; len(queue) > 0; seen++ {
		n := queue[0]
		queue = queue[1:]
		for _, c := range out[n] {
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
		if seen+1 == len(sg.Nodes) && len(queue) > 0 {
			t.Fatal("queue not empty after all nodes")
		}
	}
	for i, d := range indeg {
		if d > 0 {
			t.Fatalf("cycle through %s", sg.Nodes[i].Version)
		}
	}
	// Conditional edges: endpoints present, never also unconditional, one entry per pair.
	pairs := map[[2]string]bool{}
	for _, ce := range sg.ConditionalEdges {
		if len(ce.Edges) == 0 {
			t.Error("conditional entry without edges")
		}
		for _, e := range ce.Edges {
			if !present[e.From] || !present[e.To] {
				t.Errorf("conditional edge %s -> %s names a release not in the graph", e.From, e.To)
			}
			p := [2]string{e.From, e.To}
			if unconditional[p] {
				t.Errorf("%s -> %s is both unconditional and conditional", e.From, e.To)
			}
			if pairs[p] {
				t.Errorf("%s -> %s appears in two conditional entries", e.From, e.To)
			}
			pairs[p] = true
		}
	}
}

// checkManifestFiles verifies index.json lists exactly the files of the
// tree with their sizes, and digests for the channel graphs and a
// deterministic sample of per-version graphs (hashing the whole 2 GB tree
// would dominate the test).
func checkManifestFiles(t *testing.T, dir string, m *manifest.Manifest) {
	t.Helper()
	onDisk := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == manifest.FileName {
			return nil
		}
		onDisk++
		f, ok := m.Files[rel]
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !ok || f.Size != info.Size() {
			t.Errorf("%s: index has %+v, file has %d bytes", rel, f, info.Size())
			return nil
		}
		if strings.Count(rel, "/") == 2 || onDisk%17 == 0 {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if sum := sha256.Sum256(data); f.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: index has sha256 %s, file has %x", rel, f.SHA256, sum)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if onDisk != len(m.Files) || m.Counts.Files != onDisk+1 {
		t.Errorf("%d files on disk, %d in index, counts.files %d", onDisk, len(m.Files), m.Counts.Files)
	}
	read, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if read.Counts != m.Counts || len(read.Graphs) != len(m.Graphs) {
		t.Errorf("index.json on disk differs from the returned manifest")
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
