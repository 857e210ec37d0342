package viewer_test

import (
	"context"
	"io/fs"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestViewerRollouts: for a tree with 4.16.2 rolling out (buckets 1–3 of
// 10 open), the viewer shows the rollout's progress and a cluster picker;
// a wariness or id in a closed bucket shows the channel without the edges
// into 4.16.2 (read from the bucket's copy), one in an open bucket with
// them, as the edges answer that cluster.
func TestViewerRollouts(t *testing.T) {
	const start = 1790000000
	gd := fstest.MapFS{"rollouts/4.16.2.yaml": &fstest.MapFile{Data: []byte("version: 4.16.2\nstart_epoch: " +
		strconv.Itoa(start) + "\nstart_percentage: 0.1\nduration_minutes: 1000\n")}}
	demo := upgraph.DemoGraphData()
	if err := fs.WalkDir(demo, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(demo, p)
		gd[p] = &fstest.MapFile{Data: data}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()}, gd,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	at := int64(start + 300*60)
	if _, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(at, 0),
		Rollouts: &rollout.Plan{Rollouts: b.Rollouts, Buckets: 10, At: at},
	}); err != nil {
		t.Fatal(err)
	}
	p := newPage(t, newBrowser(t), serveTree(t, dir))
	p.open(t, url.Values{"channel": {"fast-4.16"}, "arch": {"amd64"}})
	var note string
	p.eval(t, `document.getElementById('rollout-pick').hidden ? 'hidden' : document.getElementById('rollout-note').textContent`, &note)
	if !strings.Contains(note, "4.16.2: 3 of 10 buckets") {
		t.Fatalf("rollout note %q", note)
	}
	for _, tc := range []struct {
		input    string
		bucket   int
		wantPath string
	}{
		{"0.9", 9, "rollout/9/graph/amd64/fast-4.16.json"},
		{"0.2", 2, ""},
	} {
		before := p.renders(t)
		p.eval(t, `(() => { const i = document.getElementById('rollout-id'); i.value = '`+tc.input+`'; i.dispatchEvent(new Event('change')); return true; })()`, nil)
		p.waitRender(t, before)
		var bucket int
		p.eval(t, `window.upgraphViewer.bucket`, &bucket)
		if bucket != tc.bucket {
			t.Errorf("%s: bucket %d, want %d", tc.input, bucket, tc.bucket)
		}
		if tc.wantPath != "" && !p.requested(tc.wantPath) {
			t.Errorf("%s: the viewer did not read %s", tc.input, tc.wantPath)
		}
		p.eval(t, `document.getElementById('rollout-note').textContent`, &note)
		if !strings.Contains(note, "bucket "+strconv.Itoa(tc.bucket)) {
			t.Errorf("%s: note %q does not name bucket %d", tc.input, note, tc.bucket)
		}
	}
	p.check(t)
}
