package s3test_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/upgraph/upgraph/internal/s3test"
)

// TestServerAndProxy checks the plumbing every S3 test relies on: objects
// round-trip with their headers and metadata through the proxy, and the
// proxy classifies and counts requests.
func TestServerAndProxy(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	p := s3test.NewProxy(t, srv)
	c := srv.ClientFor(p.URL)
	ctx := context.Background()

	body := []byte(`{"version":1}`)
	_, err := c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: &bucket, Key: aws.String("pre/graph/a b.json"), Body: bytes.NewReader(body),
		ContentType: aws.String("application/json"), CacheControl: aws.String("no-cache"),
		ContentEncoding: aws.String("identity"), Metadata: map[string]string{"sha256": "abc"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("pre/graph/a b.json")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	got := srv.Get(t, bucket, "pre/graph/a b.json")
	if !bytes.Equal(got.Body, body) || got.ContentType != "application/json" || got.CacheControl != "no-cache" ||
		got.ContentEncoding != "identity" || got.Metadata["sha256"] != "abc" {
		t.Errorf("object read back as %+v", got)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String("pre/graph/a b.json")}); err != nil {
		t.Fatal(err)
	}
	want := s3test.Counts{Requests: 4, PUTs: 1, HEADs: 1, LISTs: 1, DELETEs: 1}
	if got := p.Counts(); got != want {
		t.Errorf("counts %+v, want %+v; requests %v", got, want, p.Requests())
	}
	if keys := p.Keys(s3test.PUT); len(keys) != 1 || keys[0] != "pre/graph/a b.json" {
		t.Errorf("PUT keys %q", keys)
	}
	if objs := srv.Objects(t, bucket, ""); len(objs) != 0 {
		t.Errorf("objects left: %v", objs)
	}
}

// TestFaults checks each fault kind fires for the requests it matches, for
// as many times as asked, and that the SDK's retryer gets through
// transient ones.
func TestFaults(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	tests := []struct {
		kind     s3test.FaultKind
		wantCode string // API error code with a persistent fault ("" = transport error)
	}{
		{s3test.InternalError, "InternalError"},
		{s3test.SlowDown, "SlowDown"},
		{s3test.Reset, ""},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			p := s3test.NewProxy(t, srv)
			c := srv.ClientFor(p.URL)
			ctx := context.Background()
			put := func(key string) error {
				_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader("0123456789")})
				return err
			}
			// Transient: the first two matching PUTs fail, the SDK's third
			// attempt gets through; the unmatched key is never touched.
			p.Inject(s3test.Fault{Kind: tt.kind, Method: "PUT", Key: `^transient$`, Times: 2})
			if err := put("transient"); err != nil {
				t.Fatalf("transient fault not retried: %v", err)
			}
			if err := put("other"); err != nil {
				t.Fatal(err)
			}
			if p.Fired() != 2 {
				t.Errorf("fired %d, want 2; requests %v", p.Fired(), p.Requests())
			}
			if got := p.Keys(s3test.PUT); len(got) != 2 {
				t.Errorf("successful PUTs %q, want 2", got)
			}
			// Persistent after one: the next PUT passes, then all fail.
			p.Inject(s3test.Fault{Kind: tt.kind, Method: "PUT", Key: `^forever`, After: 1})
			if err := put("forever-1"); err != nil {
				t.Fatal(err)
			}
			err := put("forever-2")
			if err == nil {
				t.Fatal("persistent fault: PUT succeeded")
			}
			var apiErr smithy.APIError
			if tt.wantCode != "" && (!errors.As(err, &apiErr) || apiErr.ErrorCode() != tt.wantCode) {
				t.Errorf("error %v, want code %s", err, tt.wantCode)
			}
			if tt.wantCode == "" && !strings.Contains(err.Error(), "connection reset") && !errors.Is(err, io.EOF) {
				t.Errorf("error %v, want a connection reset", err)
			}
		})
	}
}
