package viewer_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/rollouttest"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestViewerRollouts: for a tree with 4.16.2 rolling out (buckets 1–3 of
// 10 open), the viewer shows the rollout's progress and a cluster picker;
// a wariness or id in a closed bucket shows the channel without the edges
// into 4.16.2 (read from the bucket's copy), one in an open bucket with
// them, as the edges answer that cluster.
func TestViewerRollouts(t *testing.T) {
	b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		rollouttest.GraphData(t, upgraph.DemoGraphData(), rollouttest.Start), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := generator.RolloutPlan(b, rollouttest.Buckets, time.Unix(rollouttest.At, 0))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(rollouttest.At, 0), Rollouts: plan,
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
