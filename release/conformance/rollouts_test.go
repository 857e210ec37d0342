package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/release/annotate"
	"github.com/upgraph/upgraph/release/edges"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/rollout"
)

// TestRolloutsIgnoredUpstream: a graph-data repository with rollouts/
// (docs/rollouts.md), read as upstream's openshift-secondary-metadata-parse
// reads graph-data (spec §3.3: only blocked-edges/ and channels/ are
// walked; §3.10), gives upstream's answer for every fixture: the same
// edges, with the same hash, as without rollouts. Peers running upstream
// Cincinnati on the same repository serve every release at once.
func TestRolloutsIgnoredUpstream(t *testing.T) {
	extra := map[string]string{
		"rollouts/4.7.4.yaml": "version: 4.7.4\nstart_epoch: 1790000000\nstart_percentage: 0.1\nduration_minutes: 2880\n",
		"rollouts/4.3.1.yaml": "version: 4.3.1\nchannels: [stable-4.3]\nstart_epoch: 1790000000\nstart_percentage: 0\nduration_minutes: 60\n",
		"rollouts/README.md":  "rollouts, read by upgraph only\n",
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(fixtures, tc.name)
			gdfs := overlay(t, os.DirFS(filepath.Join(dir, "cincinnati-graph-data")), extra)
			if rs, err := rollout.Load(gdfs); err != nil || len(rs) != 2 {
				t.Fatalf("the repository has no rollouts for upgraph: %v %v", rs, err)
			}
			gd, err := graphdata.Load(gdfs, graphdata.UpstreamOptions())
			if err != nil {
				t.Fatal(err)
			}
			if len(gd.Warnings) != 0 {
				for _, w := range gd.Warnings {
					if strings.Contains(w.File, "rollouts") {
						t.Errorf("the graph-data reader looked at rollouts/: %v", w)
					}
				}
			}
			g := load(t, filepath.Join(dir, "graph-gb-raw.json"))
			annotate.Apply(g, gd, annotate.Options{UpstreamQuirks: true})
			if _, err := edges.Apply(g, edges.Options{}); err != nil {
				t.Fatal(err)
			}
			ae := edgeLines(g)
			sum := sha256.Sum256([]byte(strings.Join(ae, "\n")))
			if got := hex.EncodeToString(sum[:]); len(ae) != tc.edges || got != tc.edgesHash {
				t.Errorf("with rollouts/: %d edges, hash %s; upstream's answer is %d edges, hash %s", len(ae), got, tc.edges, tc.edgesHash)
			}
		})
	}
}

func overlay(t *testing.T, fsys fs.FS, extra map[string]string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range extra {
		out[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return out
}
