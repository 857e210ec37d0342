package publish_test

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestJournalFlag: a publish that writes a journal first flags the
// published index.json, keeping its bytes, headers and metadata; a run
// stopped at any point after that leaves the flag, and the next run, of the
// same tree or of the previous one, reads the journal (or, without one,
// checks every object), converges and clears the flag, after which a run
// is a single GET again.
func TestJournalFlag(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gen0 := generate(t, spec{sigs: []string{"sig"}})
	gen1 := generate(t, spec{sigs: []string{"sig", "sig-2"}, edit: setURL("4.16.1+amd64.json", "https://example.com/errata/flag")})
	m0, _ := manifest.Read(gen0)
	m1, _ := manifest.Read(gen1)
	faults := []struct {
		name    string
		fault   s3test.Fault
		journal bool // the interrupted run wrote its journal
	}{
		// Stopped between the flag and the journal: nothing uploaded.
		{name: "flag, no journal", fault: s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Key: `/\.upgraph-publish\.json$`}},
		{name: "journal, nothing uploaded", journal: true,
			fault: s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Key: `/(graph|signatures)/`}},
		// Flag, journal, then three leaves.
		{name: "some uploads", journal: true, fault: s3test.Fault{Kind: s3test.Reset, Method: "PUT", After: 5}},
	}
	reruns := []struct {
		name string
		dir  string
		m    *manifest.Manifest
	}{{"same tree", gen1, m1}, {"previous tree", gen0, m0}}
	for _, f := range faults {
		for _, rr := range reruns {
			t.Run(f.name+"/"+rr.name, func(t *testing.T) {
				t.Parallel()
				e := e.fork(t)
				bucket := e.srv.NewBucket(t)
				e.publish(t, e.opts(gen0, bucket))
				before := e.srv.Get(t, bucket, key(manifest.FileName))
				o := e.opts(gen1, bucket)
				o.Workers = 1 // "some uploads" means three leaves, not three in flight
				e.interrupt(t, o, f.fault)

				checkFlagged(t, e, bucket, before)
				objs := e.state(t, bucket)
				if _, ok := objs[key(publish.JournalPath)]; ok != f.journal {
					t.Errorf("journal present: %v, want %v", ok, f.journal)
				}
				// What the re-run must upload: whatever the bucket holds
				// differently from its tree, and index.json, to clear
				// the flag even when it is the same.
				want := []string{manifest.FileName}
				for p, file := range rr.m.Files {
					if objs[key(p)].SHA256 != file.SHA256 {
						want = append(want, p)
					}
				}
				slices.Sort(want)

				o = e.opts(rr.dir, bucket)
				o.Delete, o.MaxDeletes = true, -1
				rep := e.publish(t, o)
				if got := actionPaths(rep.Plan.Uploads); !slices.Equal(got, want) {
					t.Errorf("re-run uploaded %q, want %q", got, want)
				}
				for _, a := range rep.Plan.Uploads {
					if a.Reason == publish.HeadersChanged {
						t.Errorf("%s: re-uploaded for its headers; the flag lost the header rules' digest", a.Path)
					}
				}
				if !f.journal && rep.Plan.Verified != len(rr.m.Files) {
					t.Errorf("flag without a journal: verified %d, want every object (%d)", rep.Plan.Verified, len(rr.m.Files))
				}
				e.checkPublished(t, bucket, rr.dir)
				if e.flagged(t, bucket) {
					t.Error("index.json still flagged after the re-run")
				}
				if reqs := e.requestsOf(t, e.opts(rr.dir, bucket)); len(reqs) != 1 {
					t.Errorf("the run after made %d requests, want only the GET of index.json: %v", len(reqs), reqs)
				}
			})
		}
	}
}

// checkFlagged asserts index.json is before's, flagged, and otherwise
// untouched: same bytes, Content-Type, Cache-Control, Content-Encoding and
// user metadata (its sha256, the header rules' digest).
func checkFlagged(t *testing.T, e *env, bucket string, before s3test.Object) {
	t.Helper()
	after := e.srv.Get(t, bucket, key(manifest.FileName))
	if after.Metadata[publish.MetaJournal] == "" {
		t.Fatalf("index.json not flagged: metadata %v", after.Metadata)
	}
	meta := maps.Clone(after.Metadata)
	delete(meta, publish.MetaJournal)
	if !maps.Equal(meta, before.Metadata) {
		t.Errorf("flagged index.json has metadata %v, want %v and the flag", after.Metadata, before.Metadata)
	}
	if after.SHA256 != before.SHA256 || after.ContentType != before.ContentType ||
		after.CacheControl != before.CacheControl || after.ContentEncoding != before.ContentEncoding {
		t.Errorf("flagged index.json: sha256 %s, %q, %q, %q; want %s, %q, %q, %q", after.SHA256,
			after.ContentType, after.CacheControl, after.ContentEncoding,
			before.SHA256, before.ContentType, before.CacheControl, before.ContentEncoding)
	}
	if ct, cc, _ := wantHeaders(manifest.FileName); after.ContentType != ct || after.CacheControl != cc {
		t.Errorf("flagged index.json: Content-Type %q, Cache-Control %q; want %q, %q", after.ContentType, after.CacheControl, ct, cc)
	}
}

// TestJournalFlagRace: the flag is set only on the index.json the plan was
// made from (If-Match on its ETag). When another publish replaced it in
// between, the run stops before writing anything, naming the key.
func TestJournalFlagRace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gen0 := generate(t, spec{})
	gen1 := generate(t, spec{edit: setURL("4.16.1+amd64.json", "https://example.com/errata/race")})
	gen2 := generate(t, spec{edit: setURL("4.16.1+amd64.json", "https://example.com/errata/race-2")})
	bucket := e.srv.NewBucket(t)
	e.publish(t, e.opts(gen0, bucket))
	replaced := false
	o := e.opts(gen1, bucket)
	// Another publish of gen2 completes just before this run flags.
	o.Client = s3.New(e.client.Options(), func(so *s3.Options) {
		so.HTTPClient = beforeCopy{next: so.HTTPClient, hook: func() {
			if !replaced {
				replaced = true
				e.publish(t, e.opts(gen2, bucket))
			}
		}}
	})
	e.proxy.Reset()
	_, err := publish.Publish(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "s3://"+bucket+"/"+key(manifest.FileName)) {
		t.Fatalf("error %v, want one naming index.json", err)
	}
	t.Logf("error: %v", err)
	e.checkPublished(t, bucket, gen2)
	if e.flagged(t, bucket) {
		t.Error("the other publish's index.json got flagged")
	}
}

// beforeCopy calls hook before each CopyObject it sends.
type beforeCopy struct {
	next s3.HTTPClient
	hook func()
}

func (b beforeCopy) Do(r *http.Request) (*http.Response, error) {
	if r.Header.Get("X-Amz-Copy-Source") != "" {
		b.hook()
	}
	return b.next.Do(r)
}
