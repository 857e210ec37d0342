package publish_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
)

// TestDryRunMatchesRun: a dry run only reads, and the plan it prints is the
// plan a real run then prints and carries out, request for request.
func TestDryRunMatchesRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	gen0 := generate(t, spec{})
	gen1 := generate(t, spec{edit: setURL("4.16.1+amd64.json", "https://example.com/errata/dry")})
	small := generate(t, spec{channels: `^(candidate-4\.15|fast-4\.15|stable-4\.15|fast-4\.16|stable-4\.16)$`})
	tests := []struct {
		name  string
		setup func(t *testing.T, e *env, bucket string) // what is published before
		dir   string
		edit  func(o *publish.Options)
	}{
		{name: "first publish", setup: func(*testing.T, *env, string) {}, dir: gen0},
		{name: "one release changed", setup: func(t *testing.T, e *env, b string) { e.publish(t, e.opts(gen0, b)) }, dir: gen1},
		{name: "stale and orphan deleted",
			setup: func(t *testing.T, e *env, b string) {
				e.publish(t, e.opts(gen0, b))
				e.srv.Put(t, b, key("graph/amd64/orphan.json"), []byte("{}"))
			},
			dir: small, edit: func(o *publish.Options) { o.Delete, o.Force = true, true }},
		{name: "deletions over the cap",
			setup: func(t *testing.T, e *env, b string) { e.publish(t, e.opts(gen0, b)) },
			dir:   small, edit: func(o *publish.Options) { o.Delete, o.Force, o.MaxDeletes = true, true, 3 }},
		{name: "after an interrupted publish",
			setup: func(t *testing.T, e *env, b string) {
				e.publish(t, e.opts(gen0, b))
				e.proxy.Inject(s3test.Fault{Kind: s3test.Reset, Method: "PUT", After: 4})
				o := e.opts(gen1, b)
				o.Workers = 1
				if _, err := publish.Publish(context.Background(), o); err == nil {
					t.Fatal("publish through a dead connection succeeded")
				}
				e.proxy.ClearFaults()
			},
			dir: gen0},
		{name: "verify", setup: func(t *testing.T, e *env, b string) { e.publish(t, e.opts(gen0, b)) }, dir: gen1,
			edit: func(o *publish.Options) { o.Verify = true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e.fork(t)
			bucket := e.srv.NewBucket(t)
			tt.setup(t, e, bucket)
			o := e.opts(tt.dir, bucket)
			if tt.edit != nil {
				tt.edit(&o)
			}
			before := e.state(t, bucket)

			e.proxy.Reset()
			o.DryRun = true
			dry, dryErr := publish.Publish(context.Background(), o)
			if dry == nil {
				t.Fatalf("dry run: %v", dryErr)
			}
			if c := e.proxy.Counts(); c.PUTs != 0 || c.DELETEs != 0 || c.Others != 0 {
				t.Errorf("dry run wrote: %+v", c)
			}
			if !maps.Equal(before, e.state(t, bucket)) {
				t.Error("dry run changed the bucket")
			}
			var dryText bytes.Buffer
			dry.Plan.WriteTo(&dryText)

			e.proxy.Reset()
			o.DryRun = false
			real, realErr := publish.Publish(context.Background(), o)
			if !errors.Is(realErr, publish.ErrTooManyDeletes) && realErr != nil {
				t.Fatal(realErr)
			}
			if (dryErr == nil) != (realErr == nil) {
				t.Errorf("dry run error %v, real run error %v", dryErr, realErr)
			}
			var realText bytes.Buffer
			real.Plan.WriteTo(&realText)
			if dryText.String() != realText.String() {
				t.Errorf("dry-run plan:\n%s\nreal run's plan:\n%s", &dryText, &realText)
			}
			if !slices.Equal(dry.Plan.Uploads, real.Plan.Uploads) || !slices.Equal(dry.Plan.Deletes, real.Plan.Deletes) {
				t.Error("dry-run actions differ from the real run's")
			}
			if got, want := e.uploadedPaths(), actionPaths(dry.Plan.Uploads); !slices.Equal(got, want) {
				t.Errorf("real run PUT %q,\ndry run planned %q", got, want)
			}
			if got, want := treePaths(e.proxy.Keys(s3test.DELETE)), actionPaths(dry.Plan.Deletes); !slices.Equal(got, want) {
				t.Errorf("real run DELETE %q,\ndry run planned %q", got, want)
			}
			if real.Uploaded != len(dry.Plan.Uploads) || real.Deleted != len(dry.Plan.Deletes) {
				t.Errorf("real run did %d uploads and %d deletes; planned %d and %d",
					real.Uploaded, real.Deleted, len(dry.Plan.Uploads), len(dry.Plan.Deletes))
			}
			t.Logf("plan:\n%s", &dryText)
		})
	}
}
