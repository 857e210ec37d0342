package s3tree_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// TestBucket reads objects under a prefix however the prefix is
// slashed, as whole files; a missing object is fs.ErrNotExist, a missing
// bucket is not, and names fs.ValidPath refuses are fs.ErrInvalid
// without a request.
func TestBucket(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	files := map[string][]byte{"index.json": []byte(`{"format":1}`), "graph/amd64/stable-4.16.json": []byte("{}\n")}
	for name, data := range files {
		srv.Put(t, bucket, "upgraph/v1/"+name, data)
	}
	client, err := s3tree.NewClient(t.Context(), s3tree.ClientOptions{
		Endpoint: srv.URL, PathStyle: true, Credentials: srv.Credentials(), MaxBackoff: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"upgraph/v1", "/upgraph/v1/", "upgraph/v1//"} {
		b := s3tree.NewBucket(client, bucket, prefix)
		for name, want := range files {
			if got, err := b.ReadFile(t.Context(), name); err != nil || !bytes.Equal(got, want) {
				t.Errorf("prefix %q: ReadFile(%s) = %q, %v; want %q", prefix, name, got, err, want)
			}
		}
		_, err := b.ReadFile(t.Context(), "graph/amd64/missing.json")
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "s3://"+bucket+"/upgraph/v1/graph/amd64/missing.json") {
			t.Errorf("prefix %q: a missing object: %v, want fs.ErrNotExist naming its URL", prefix, err)
		}
	}
	// No prefix: names are keys.
	if got, err := s3tree.NewBucket(client, bucket, "").ReadFile(t.Context(), "upgraph/v1/index.json"); err != nil || !bytes.Equal(got, files["index.json"]) {
		t.Errorf("no prefix: %q, %v", got, err)
	}
	b := s3tree.NewBucket(client, bucket, "upgraph/v1")
	for _, name := range []string{"", ".", "/index.json", "../index.json", "graph/../index.json"} {
		if _, err := b.ReadFile(t.Context(), name); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("ReadFile(%q): %v, want fs.ErrInvalid", name, err)
		}
	}
	_, err = s3tree.NewBucket(client, "no-such-bucket", "upgraph/v1").ReadFile(t.Context(), "index.json")
	if err == nil || errors.Is(err, fs.ErrNotExist) || s3tree.IsNotFound(errors.Unwrap(err)) {
		t.Errorf("a missing bucket: %v, want an error other than fs.ErrNotExist", err)
	}
	if s3tree.IsNotFound(nil) || s3tree.IsNotFound(errors.New("404")) {
		t.Error("IsNotFound of an error without a status")
	}
}

func TestParseURL(t *testing.T) {
	tests := []struct {
		in, bucket, prefix string
		ok                 bool
	}{
		{"s3://b", "b", "", true},
		{"s3://b/", "b", "", true},
		{"s3://b/p/q/", "b", "p/q", true},
		{"https://b/p", "", "", false},
		{"s3:///p", "", "", false},
		{"b/p", "", "", false},
	}
	for _, tt := range tests {
		bucket, prefix, err := s3tree.ParseURL(tt.in)
		if (err == nil) != tt.ok || bucket != tt.bucket || prefix != tt.prefix {
			t.Errorf("ParseURL(%q) = %q, %q, %v", tt.in, bucket, prefix, err)
		}
	}
}

// TestBucketObjectLimit: an object larger than MaxObjectBytes is refused,
// naming its URL and the bound, without being read whole: from the length
// the store gives, or, where none is given, after the bound is passed.
func TestBucketObjectLimit(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	srv.Put(t, bucket, "tree/index.json", bytes.Repeat([]byte("x"), 1000))
	client, err := s3tree.NewClient(t.Context(), s3tree.ClientOptions{
		Endpoint: srv.URL, PathStyle: true, Credentials: srv.Credentials(), MaxBackoff: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int64
		want  string // "" for the object read
	}{
		{0, ""},
		{1000, ""},
		{999, "s3://" + bucket + "/tree/index.json: 1000 bytes, more than the 999 an object read whole may have"},
	} {
		b := s3tree.NewBucket(client, bucket, "tree")
		b.MaxObjectBytes = tc.limit
		data, err := b.ReadFile(t.Context(), "index.json")
		switch {
		case tc.want == "" && (err != nil || len(data) != 1000):
			t.Errorf("limit %d: %d bytes, %v; want the object", tc.limit, len(data), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("limit %d: %d bytes, %v; want an error containing %q", tc.limit, len(data), err, tc.want)
		}
	}

	// A store that gives no length: reading stops after the bound.
	b := &s3tree.Bucket{Name: "b", MaxObjectBytes: 10}
	body := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
	_, err = b.ReadBody(&s3.GetObjectOutput{Body: io.NopCloser(body)}, "k")
	if err == nil || !strings.Contains(err.Error(), "s3://b/k: more than the 10 bytes") {
		t.Errorf("no length given: %v, want a refusal naming s3://b/k and 10 bytes", err)
	}
	if body.n > 4096 {
		t.Errorf("%d bytes read of an object over a bound of 10", body.n)
	}
	if data, err := b.ReadBody(&s3.GetObjectOutput{Body: io.NopCloser(strings.NewReader("0123456789"))}, "k"); err != nil || string(data) != "0123456789" {
		t.Errorf("no length given, 10 bytes: %q, %v", data, err)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
