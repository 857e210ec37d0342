package publish_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestTransientFaults: 500s, SlowDowns and connection resets on the first
// few requests of each kind are retried and the publish succeeds.
func TestTransientFaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gen0 := generate(t, spec{})
	gen1 := generate(t, spec{edit: setURL("4.16.1+amd64.json", "https://example.com/errata/faults")})
	tests := []struct {
		name  string
		fault s3test.Fault
		edit  func(o *publish.Options)
		// interrupted starts from a publish of gen1 that flagged
		// index.json and wrote its journal, then failed.
		interrupted bool
	}{
		{name: "500 on uploads", fault: s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Times: 4}},
		{name: "SlowDown on uploads", fault: s3test.Fault{Kind: s3test.SlowDown, Method: "PUT", Times: 6}},
		{name: "reset mid-upload", fault: s3test.Fault{Kind: s3test.Reset, Method: "PUT", Times: 4}},
		// The first PUT of index.json is the flag (a copy onto itself).
		{name: "500 flagging index.json", fault: s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Key: `/index\.json$`, Times: 3}},
		{name: "reset uploading index.json", fault: s3test.Fault{Kind: s3test.Reset, Method: "PUT", Key: `/index\.json$`, After: 1, Times: 3}},
		{name: "reset reading index.json", fault: s3test.Fault{Kind: s3test.Reset, Method: "GET", Key: `/index\.json$`, Times: 3}},
		{name: "SlowDown reading the journal", fault: s3test.Fault{Kind: s3test.SlowDown, Method: "GET", Key: `/\.upgraph-publish\.json$`, Times: 3},
			interrupted: true},
		{name: "500 on HEADs", fault: s3test.Fault{Kind: s3test.InternalError, Method: "HEAD", Times: 5},
			edit: func(o *publish.Options) { o.Verify = true }},
		{name: "SlowDown listing", fault: s3test.Fault{Kind: s3test.SlowDown, Method: "GET", Key: `^$`, Times: 3},
			edit: func(o *publish.Options) { o.Delete = true }},
		{name: "reset deleting the journal", fault: s3test.Fault{Kind: s3test.Reset, Method: "DELETE", Times: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e.fork(t)
			bucket := e.srv.NewBucket(t)
			e.publish(t, e.opts(gen0, bucket))
			if tt.interrupted {
				e.interrupt(t, e.opts(gen1, bucket), s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Key: `/graph/`})
			}
			fired := e.proxy.Fired()
			e.proxy.Inject(tt.fault)
			defer e.proxy.ClearFaults()
			o := e.opts(gen1, bucket)
			if tt.edit != nil {
				tt.edit(&o)
			}
			e.publish(t, o)
			if got := e.proxy.Fired() - fired; got != tt.fault.Times {
				t.Errorf("fault fired %d times, want %d", got, tt.fault.Times)
			}
			e.checkPublished(t, bucket, gen1)
		})
	}
}

// TestPersistentFaults: when the store keeps failing, publish fails naming
// the object, and what was published stays intact: index.json and every
// object it lists, byte for byte (checked while the store still fails).
// Once the store recovers, a re-run publishes the new tree.
func TestPersistentFaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gen0 := generate(t, spec{})
	gen1 := generate(t, spec{edit: setURL("4.16.1+amd64.json", "https://example.com/errata/persistent")})
	tests := []struct {
		name     string
		fault    s3test.Fault
		wantKey  string // named by the error
		journal  bool   // the journal was written before the failures
		flagged  bool   // index.json was flagged before the failures
		editOpts func(o *publish.Options)
	}{
		// The first write is the flag on index.json, a copy (a PUT).
		{name: "500 on every upload", fault: s3test.Fault{Kind: s3test.InternalError, Method: "PUT"}, wantKey: manifest.FileName},
		{name: "SlowDown on every upload", fault: s3test.Fault{Kind: s3test.SlowDown, Method: "PUT"}, wantKey: manifest.FileName},
		{name: "reset on every upload", fault: s3test.Fault{Kind: s3test.Reset, Method: "PUT"}, wantKey: manifest.FileName},
		{name: "500 writing the journal", fault: s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Key: `/\.upgraph-publish\.json$`},
			wantKey: publish.JournalPath, flagged: true},
		{name: "500 on every graph upload", fault: s3test.Fault{Kind: s3test.InternalError, Method: "PUT", Key: `/graph/`},
			wantKey: "graph/", journal: true, flagged: true},
		{name: "reset reading index.json", fault: s3test.Fault{Kind: s3test.Reset, Method: "GET", Key: `/index\.json$`},
			wantKey: manifest.FileName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e.fork(t)
			bucket := e.srv.NewBucket(t)
			e.publish(t, e.opts(gen0, bucket))
			e.proxy.Inject(tt.fault)
			_, err := publish.Publish(context.Background(), e.opts(gen1, bucket))
			if err == nil {
				t.Fatal("publish succeeded through a persistent fault")
			}
			if want := "s3://" + bucket + "/" + key(tt.wantKey); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
			var leftovers []string
			if tt.journal {
				leftovers = append(leftovers, key(publish.JournalPath))
			}
			e.checkPublished(t, bucket, gen0, leftovers...)
			index, _ := os.ReadFile(filepath.Join(gen0, manifest.FileName))
			if got := e.srv.Get(t, bucket, key(manifest.FileName)).Body; string(got) != string(index) {
				t.Error("index.json changed")
			}
			if got := e.flagged(t, bucket); got != tt.flagged {
				t.Errorf("index.json flagged: %v, want %v", got, tt.flagged)
			}

			// The store recovers once the failed run's abandoned
			// requests are done (they still meet the fault).
			e.proxy.Settle()
			e.proxy.ClearFaults()
			e.publish(t, e.opts(gen1, bucket))
			e.checkPublished(t, bucket, gen1)
			if e.flagged(t, bucket) {
				t.Error("index.json still flagged after a complete publish")
			}
		})
	}
}
