package s3test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Credentials are the server's root credentials, for clients built
// elsewhere (e.g. by the code under test).
func (s *Server) Credentials() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, "")
}

// Client returns a client talking to the server directly, bypassing any
// proxy: what tests use to set up and inspect buckets.
func (s *Server) Client() *s3.Client {
	return s.ClientFor(s.URL)
}

// ClientFor returns a client for the server reached at url, e.g. a Proxy's.
// It retries as the SDK does by default (3 attempts), with backoffs of
// 10 ms so tests of faults stay quick.
func (s *Server) ClientFor(url string) *s3.Client {
	return s.client(url, retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxBackoff = 10 * time.Millisecond
		o.RateLimiter = ratelimit.None
	}))
}

func (s *Server) client(url string, retryer aws.Retryer) *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(url),
		Region:       Region,
		Credentials:  s.Credentials(),
		UsePathStyle: true,
		// No Proxy func: HTTP_PROXY must not reroute test traffic.
		HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}},
		Retryer:    retryer,
		// versitygw answers without checksums for some objects; the
		// SDK's warning about skipping validation is noise here.
		DisableLogOutputChecksumValidationSkipped: true,
	})
}

// NewBucket creates an empty bucket with a name unique on this server.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("bucket-%d", s.buckets.Add(1))
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("s3test: creating bucket %s: %v", name, err)
	}
	return name
}

// Object is one stored object as a client reads it back.
type Object struct {
	Body            []byte
	SHA256          string // of Body, hex
	ContentType     string
	CacheControl    string
	ContentEncoding string
	Metadata        map[string]string // user metadata, keys lower-case
}

// Objects reads every object of bucket under prefix (all of them for ""),
// keyed by full object key.
func (s *Server) Objects(t testing.TB, bucket, prefix string) map[string]Object {
	t.Helper()
	ctx := context.Background()
	c := s.Client()
	objs := map[string]Object{}
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("s3test: listing %s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			objs[*o.Key] = s.Get(t, bucket, *o.Key)
		}
	}
	return objs
}

// Get reads one object; a missing object fails the test.
func (s *Server) Get(t testing.TB, bucket, key string) Object {
	t.Helper()
	out, err := s.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("s3test: GET %s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("s3test: reading %s/%s: %v", bucket, key, err)
	}
	sum := sha256.Sum256(body)
	return Object{
		Body:            body,
		SHA256:          hex.EncodeToString(sum[:]),
		ContentType:     aws.ToString(out.ContentType),
		CacheControl:    aws.ToString(out.CacheControl),
		ContentEncoding: aws.ToString(out.ContentEncoding),
		Metadata:        out.Metadata,
	}
}

// Put stores body at key with no particular headers, e.g. a foreign object
// or a damaged copy.
//
// Unlike S3, versitygw keeps an object's user metadata and Cache-Control
// when a PUT that sets none overwrites it.
func (s *Server) Put(t testing.TB, bucket, key string, body []byte) {
	t.Helper()
	_, err := s.Client().PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: &bucket, Key: &key, Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))),
	})
	if err != nil {
		t.Fatalf("s3test: PUT %s/%s: %v", bucket, key, err)
	}
}
