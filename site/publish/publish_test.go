package publish_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestFirstPublish: every object of a real tree (signatures and a gzip
// variant included) lands with its bytes, headers and sha256, each
// uploaded once, in dependency order.
func TestFirstPublish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := generate(t, spec{sigs: []string{"sig-one", "sig-two"}, gzip: true})
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts.Signatures != 2 {
		t.Fatalf("tree has %d signatures, want 2", m.Counts.Signatures)
	}
	bucket := e.srv.NewBucket(t)
	e.proxy.Reset()
	rep := e.publish(t, e.opts(dir, bucket))

	e.checkPublished(t, bucket, dir)
	want := append(slices.Collect(maps.Keys(m.Files)), manifest.FileName)
	slices.Sort(want)
	if got := e.uploadedPaths(); !slices.Equal(got, want) {
		t.Errorf("PUT %d objects, want each of the %d once:\n%q", len(got), len(want), got)
	}
	if !rep.Plan.First || rep.Uploaded != len(want) || rep.Plan.Unchanged != 0 {
		t.Errorf("report: first %v, uploaded %d, unchanged %d; want true, %d, 0", rep.Plan.First, rep.Uploaded, rep.Plan.Unchanged, len(want))
	}
	for _, a := range rep.Plan.Uploads {
		if a.Reason != publish.New {
			t.Errorf("%s: reason %s, want new", a.Path, a.Reason)
		}
	}
	checkOrder(t, e.proxy.Requests(), m, false)
}

// checkOrder asserts the write order clients rely on: the flag on the
// published index.json (when there is one), the journal, then every leaf,
// then every channel graph, then index.json, then the journal's removal.
func checkOrder(t *testing.T, reqs []s3test.Request, m *manifest.Manifest, flag bool) {
	t.Helper()
	channels := map[string]bool{}
	for _, g := range m.Graphs {
		channels[key(g.Path)] = true
	}
	journaled := false
	rank := func(r s3test.Request) int {
		switch {
		case r.Kind == s3test.PUT && r.Key == key(manifest.FileName) && !journaled:
			return 0 // the flag: a copy, which the proxy counts as a PUT
		case r.Kind == s3test.PUT && r.Key == key(publish.JournalPath):
			journaled = true
			return 1
		case r.Kind == s3test.PUT && channels[r.Key]:
			return 3
		case r.Kind == s3test.PUT && r.Key == key(manifest.FileName):
			return 4
		case r.Kind == s3test.PUT:
			return 2
		case r.Kind == s3test.DELETE && r.Key == key(publish.JournalPath):
			return 5
		}
		return -1
	}
	last, seen := 0, map[int]bool{}
	for _, r := range reqs {
		k := rank(r)
		if k < 0 {
			continue
		}
		if k < last {
			t.Errorf("%v after a rank-%d write; order must be flag, journal, leaves, channel graphs, index.json, journal removal", r, last)
		}
		last = max(last, k)
		seen[k] = true
	}
	if seen[0] != flag {
		t.Errorf("index.json flagged before the journal: %v, want %v", seen[0], flag)
	}
	for k := 1; k <= 5; k++ {
		if !seen[k] {
			t.Errorf("no write of rank %d seen", k)
		}
	}
}

// TestUnchangedRepublish: publishing the same tree again, or a regenerated
// identical one, makes one request, the GET of index.json: the journal is
// not looked for, since index.json carries no publish-in-progress flag.
func TestUnchangedRepublish(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := generate(t, spec{sigs: []string{"sig"}})
	bucket := e.srv.NewBucket(t)
	e.publish(t, e.opts(dir, bucket))
	before := e.state(t, bucket)
	for _, d := range []string{dir, generate(t, spec{sigs: []string{"sig"}})} {
		e.proxy.Reset()
		rep := e.publish(t, e.opts(d, bucket))
		reqs := e.proxy.Requests()
		if len(reqs) != 1 || reqs[0].Kind != s3test.GET || reqs[0].Key != key(manifest.FileName) {
			t.Errorf("requests %v; want only the GET of index.json", reqs)
		}
		if rep.Uploaded != 0 || len(rep.Plan.Uploads) != 0 {
			t.Errorf("uploaded %d, planned %v", rep.Uploaded, rep.Plan.Uploads)
		}
	}
	if after := e.state(t, bucket); !maps.Equal(before, after) {
		t.Error("an unchanged re-publish changed the bucket")
	}
}

// TestOneReleaseChange: a change to one release's metadata uploads exactly
// the files whose content changed, and index.json.
func TestOneReleaseChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gen0 := generate(t, spec{})
	gen1 := generate(t, spec{edit: setURL("4.16.1+amd64.json", "https://example.com/errata/4.16.1-fixed")})
	want := changedPaths(t, gen0, gen1)
	m1, _ := manifest.Read(gen1)
	if len(want) < 3 || len(want) >= len(m1.Files) {
		t.Fatalf("the change touches %d of %d files; the test needs a few: %q", len(want), len(m1.Files), want)
	}
	bucket := e.srv.NewBucket(t)
	e.publish(t, e.opts(gen0, bucket))
	e.proxy.Reset()
	rep := e.publish(t, e.opts(gen1, bucket))

	if got := e.uploadedPaths(); !slices.Equal(got, want) {
		t.Errorf("PUT %q,\nwant the manifest diff %q", got, want)
	}
	checkOrder(t, e.proxy.Requests(), m1, true)
	if got := actionPaths(rep.Plan.Uploads); !slices.Equal(got, want) {
		t.Errorf("planned %q, want %q", got, want)
	}
	for _, a := range rep.Plan.Uploads {
		if a.Reason != publish.Changed {
			t.Errorf("%s: reason %s, want changed", a.Path, a.Reason)
		}
	}
	if rep.Plan.Unchanged != len(m1.Files)+1-len(want) {
		t.Errorf("unchanged %d, want %d", rep.Plan.Unchanged, len(m1.Files)+1-len(want))
	}
	e.checkPublished(t, bucket, gen1)
}

// TestDelete: stale objects go only with Delete, only after index.json is
// replaced, and not at all beyond MaxDeletes.
func TestDelete(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	full := generate(t, spec{})
	// Dropping candidate-4.16 leaves 2 channel graphs and 12 per-version
	// graphs stale.
	small := generate(t, spec{channels: `^(candidate-4\.15|fast-4\.15|stable-4\.15|fast-4\.16|stable-4\.16)$`})
	stale := 14
	const foreign = "graph/amd64/foreign.json" // not from any tree
	tests := []struct {
		name       string
		delete     bool
		maxDeletes int
		foreign    bool
		wantErr    error
		wantGone   int // objects deleted
	}{
		{name: "off", delete: false, wantGone: 0},
		{name: "at the cap", delete: true, maxDeletes: stale, wantGone: stale},
		{name: "no cap", delete: true, maxDeletes: -1, wantGone: stale},
		{name: "over the cap", delete: true, maxDeletes: stale - 1, wantErr: publish.ErrTooManyDeletes},
		{name: "orphan", delete: true, maxDeletes: -1, foreign: true, wantGone: stale + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e.fork(t)
			bucket := e.srv.NewBucket(t)
			e.publish(t, e.opts(full, bucket))
			if tt.foreign {
				e.srv.Put(t, bucket, key(foreign), []byte("{}"))
			}
			e.srv.Put(t, bucket, prefix+"/README", []byte("not under graph/: never deleted"))
			before := e.state(t, bucket)
			e.proxy.Reset()
			o := e.opts(small, bucket)
			o.Delete, o.MaxDeletes, o.Force = tt.delete, tt.maxDeletes, true // Force: a channel fewer is the point
			rep, err := publish.Publish(context.Background(), o)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			after := e.state(t, bucket)
			if _, ok := after[prefix+"/README"]; !ok {
				t.Error("deleted an object outside the tree's directories")
			}
			gone := treePaths(e.proxy.Keys(s3test.DELETE))
			if len(gone) != tt.wantGone || len(before)-len(after) != tt.wantGone {
				t.Errorf("deleted %d objects (%d fewer in the bucket), want %d: %q", len(gone), len(before)-len(after), tt.wantGone, gone)
			}
			// The new index.json is live whatever happened to deletions.
			index, _ := os.ReadFile(filepath.Join(small, manifest.FileName))
			if got := e.srv.Get(t, bucket, key(manifest.FileName)).Body; string(got) != string(index) {
				t.Error("index.json is not the new tree's")
			}
			switch {
			case tt.wantErr != nil:
				for _, s := range []string{"14 objects", "limit of 13"} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				if rep == nil || rep.Uploaded == 0 {
					t.Error("uploads did not happen before the deletions were refused")
				}
			case tt.delete:
				e.checkPublished(t, bucket, small, prefix+"/README")
				for _, a := range rep.Plan.Deletes {
					if want := map[bool]publish.Reason{true: publish.Orphan, false: publish.Stale}[a.Path == foreign]; a.Reason != want {
						t.Errorf("delete %s: reason %s, want %s", a.Path, a.Reason, want)
					}
				}
			default:
				if rep.Plan.Kept != stale {
					t.Errorf("kept %d stale, want %d", rep.Plan.Kept, stale)
				}
			}
		})
	}
}

// TestShrinkGuard: a tree dropping many releases or channels, or any
// architecture, is refused before anything is written, naming the numbers.
func TestShrinkGuard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	full := generate(t, spec{})
	tests := []struct {
		name      string
		spec      spec
		threshold float64
		force     bool
		wantErr   []string // substrings; nil: publishes
	}{
		{name: "arch dropped", spec: spec{arches: []string{"amd64"}}, wantErr: []string{"architectures dropped: arm64"}},
		{name: "channel dropped", spec: spec{channels: `^(candidate-4\.15|fast-4\.15|stable-4\.15|fast-4\.16|stable-4\.16)$`},
			wantErr: []string{"channels 6 → 5, 1 dropped (16.7%): candidate-4.16;"}},
		{name: "releases dropped", spec: spec{edit: drop("4.16.2+amd64.json", "4.16.2+arm64.json")},
			wantErr: []string{"releases 12 → 10 (16.7% fewer)", "threshold is 10%"}},
		{name: "releases dropped, threshold 20%", spec: spec{edit: drop("4.16.2+amd64.json", "4.16.2+arm64.json")}, threshold: 0.2},
		{name: "within threshold", spec: spec{edit: drop("4.16.2+arm64.json")}},
		{name: "forced", spec: spec{arches: []string{"amd64"}}, force: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e.fork(t)
			bucket := e.srv.NewBucket(t)
			e.publish(t, e.opts(full, bucket))
			before := e.state(t, bucket)
			e.proxy.Reset()
			o := e.opts(generate(t, tt.spec), bucket)
			o.Force = tt.force
			if tt.threshold != 0 {
				o.ShrinkThreshold = tt.threshold
			}
			_, err := publish.Publish(context.Background(), o)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				e.checkPublished(t, bucket, o.Dir, staleKeys(t, full, o.Dir)...) // no Delete
				return
			}
			if !errors.Is(err, publish.ErrShrink) {
				t.Fatalf("error %v, want ErrShrink", err)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if c := e.proxy.Counts(); c.PUTs != 0 || c.DELETEs != 0 {
				t.Errorf("refused publish wrote: %+v", c)
			}
			if !maps.Equal(before, e.state(t, bucket)) {
				t.Error("refused publish changed the bucket")
			}
		})
	}
}

// TestHeaderRulesChange: new header rules re-upload every object with the
// new headers once; the next run is a no-op again.
func TestHeaderRulesChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := generate(t, spec{})
	bucket := e.srv.NewBucket(t)
	e.publish(t, e.opts(dir, bucket))
	rulesFile := filepath.Join(t.TempDir(), "headers.yaml")
	os.WriteFile(rulesFile, []byte("rules:\n  - pattern: /graph/**\n    cacheControl: public, max-age=5\n"), 0o644)
	rules, err := publish.LoadRules(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	o := e.opts(dir, bucket)
	o.Rules = rules
	e.proxy.Reset()
	rep := e.publish(t, o)
	m, _ := manifest.Read(dir)
	if rep.Uploaded != len(m.Files)+1 {
		t.Errorf("uploaded %d, want all %d", rep.Uploaded, len(m.Files)+1)
	}
	for _, a := range rep.Plan.Uploads {
		if a.Reason != publish.HeadersChanged {
			t.Errorf("%s: reason %s, want headers", a.Path, a.Reason)
		}
	}
	for k, obj := range e.state(t, bucket) {
		if strings.HasPrefix(k, key("graph/")) && obj.CacheControl != "public, max-age=5" {
			t.Errorf("%s: Cache-Control %q", k, obj.CacheControl)
		}
	}
	e.proxy.Reset()
	if rep := e.publish(t, o); rep.Uploaded != 0 {
		t.Errorf("second publish with the same rules uploaded %d", rep.Uploaded)
	}
}

// TestVerify: a normal run trusts index.json; Verify checks every object
// and repairs what changed behind its back.
func TestVerify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := generate(t, spec{})
	bucket := e.srv.NewBucket(t)
	e.publish(t, e.opts(dir, bucket))
	damaged, removed := "graph/amd64/fast-4.16/4.16.0.json", "graph/arm64/stable-4.15.json"
	e.srv.Put(t, bucket, key(damaged), []byte("garbage"))
	if _, err := e.srv.Client().DeleteObject(context.Background(), s3DeleteInput(bucket, key(removed))); err != nil {
		t.Fatal(err)
	}
	if rep := e.publish(t, e.opts(dir, bucket)); rep.Uploaded != 0 {
		t.Errorf("without Verify, uploaded %d; index.json is trusted", rep.Uploaded)
	}
	o := e.opts(dir, bucket)
	o.Verify = true
	e.proxy.Reset()
	rep := e.publish(t, o)
	m, _ := manifest.Read(dir)
	got := map[string]publish.Reason{}
	for _, a := range rep.Plan.Uploads {
		got[a.Path] = a.Reason
	}
	if want := map[string]publish.Reason{damaged: publish.Drift, removed: publish.Missing}; !maps.Equal(got, want) {
		t.Errorf("uploads %v, want %v", got, want)
	}
	if c := e.proxy.Counts(); c.HEADs != len(m.Files) || rep.Plan.Verified != len(m.Files) {
		t.Errorf("%d HEADs, %d verified; want one per file (%d)", c.HEADs, rep.Plan.Verified, len(m.Files))
	}
	e.checkPublished(t, bucket, dir)
}

// TestUnreadableRemoteState: damaged bookkeeping never passes for "nothing
// published" unless forced, and a damaged journal makes the next run check
// every object (and upload index.json again, to clear its flag).
func TestUnreadableRemoteState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := generate(t, spec{})
	other := generate(t, spec{edit: setURL("4.16.1+amd64.json", "https://example.com/errata/other")})
	m, _ := manifest.Read(dir)
	tests := []struct {
		name    string
		damage  func(t *testing.T, bucket string) string // returns the bucket to publish to
		force   bool
		wantErr string
		check   func(t *testing.T, rep *publish.Report)
	}{
		{name: "index.json", wantErr: "published index.json unreadable",
			damage: func(t *testing.T, b string) string {
				e.srv.Put(t, b, key(manifest.FileName), []byte("<html>"))
				return b
			}},
		{name: "index.json, forced", force: true,
			damage: func(t *testing.T, b string) string {
				e.srv.Put(t, b, key(manifest.FileName), []byte("<html>"))
				return b
			},
			check: func(t *testing.T, rep *publish.Report) {
				if !rep.Plan.First || rep.Uploaded != len(m.Files)+1 {
					t.Errorf("first %v, uploaded %d; want everything", rep.Plan.First, rep.Uploaded)
				}
			}},
		{name: "journal",
			damage: func(t *testing.T, b string) string {
				e.publish(t, e.opts(dir, b))
				// A publish that flags index.json and writes its
				// journal, then fails every graph upload.
				e.interrupt(t, e.opts(other, b), s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Key: `/graph/`})
				e.srv.Put(t, b, key(publish.JournalPath), []byte("{"))
				return b
			},
			check: func(t *testing.T, rep *publish.Report) {
				if got := actionPaths(rep.Plan.Uploads); rep.Plan.Verified != len(m.Files) || !slices.Equal(got, []string{manifest.FileName}) {
					t.Errorf("verified %d, uploaded %q; want all %d checked, only index.json uploaded", rep.Plan.Verified, got, len(m.Files))
				}
			}},
		{name: "no bucket", wantErr: "NoSuchBucket",
			damage: func(t *testing.T, b string) string { return "no-such-bucket" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := tt.damage(t, e.srv.NewBucket(t))
			o := e.opts(dir, bucket)
			o.Force = tt.force
			rep, err := publish.Publish(context.Background(), o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "s3://"+bucket+"/") {
					t.Fatalf("error %v, want one naming the key and saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, rep)
			e.checkPublished(t, bucket, dir)
		})
	}
}

// TestRemoteObjectLimit: a published object read whole (index.json, the
// journal) of more than the bound is refused with one GET, naming its URL
// and the bound, not read into memory nor asked for again.
func TestRemoteObjectLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bucket := e.srv.NewBucket(t)
	e.srv.Put(t, bucket, key(manifest.FileName), []byte(strings.Repeat("x", 1000)))
	for _, tc := range []struct {
		max  int64
		want string // "" for the object read
	}{
		{1000, ""},
		{999, "s3://" + bucket + "/" + key(manifest.FileName) + ": 1000 bytes, more than the 999 an object read whole may have"},
	} {
		before := len(e.proxy.Requests())
		data, err := publish.GetWhole(t.Context(), e.client, bucket, prefix, manifest.FileName, tc.max)
		switch {
		case tc.want == "" && (err != nil || len(data) != 1000):
			t.Errorf("bound %d: %d bytes, %v; want the object", tc.max, len(data), err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("bound %d: %d bytes, %v; want %q", tc.max, len(data), err, tc.want)
		}
		if gets := len(e.proxy.Requests()) - before; gets != 1 {
			t.Errorf("bound %d: %d requests, want one GET", tc.max, gets)
		}
	}
}
