package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/upgraph/upgraph/tree/s3tree"
)

// Object metadata upgraph stores (sent as x-amz-meta-<name>).
const (
	// metaSHA256 is the hex sha256 of the object's bytes, as in index.json:
	// what verification compares, since ETags are not digests of content
	// on every store (multipart, SSE-KMS).
	metaSHA256 = "sha256"
	// metaRules, on index.json only, is the digest of the header rules the
	// generation was published with.
	metaRules = "upgraph-headers"
	// metaJournal, on index.json only, flags a publish in progress: the
	// journal (JournalPath) must be read. See flagIndex.
	metaJournal = "upgraph-journal"
)

// bucket is the objects of the published tree, with the requests
// publishing makes.
type bucket struct{ *s3tree.Bucket }

// object is what a GET or HEAD learnt about a stored object.
type object struct {
	body    []byte // GET only
	etag    string // GET only
	size    int64
	meta    map[string]string
	headers Headers
}

// get reads a whole object; a missing one is (nil, nil). A body cut short
// is read again: the SDK retries the request, not the streaming of the
// body, and index.json must be read whole.
func (b *bucket) get(ctx context.Context, p string) (*object, error) {
	var lastErr error
	for range 3 {
		out, err := b.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.Name, Key: aws.String(b.Key(p))})
		if s3tree.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", b.URL(p), err)
		}
		body, err := b.ReadBody(out, b.Key(p))
		out.Body.Close()
		var large *s3tree.TooLargeError
		if errors.As(err, &large) {
			return nil, err // names the object
		}
		if err == nil {
			return &object{body: body, etag: aws.ToString(out.ETag), meta: out.Metadata, headers: headersOf(out.ContentType, out.CacheControl, out.ContentEncoding)}, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("GET %s: %w", b.URL(p), ctx.Err())
		}
		lastErr = err
	}
	return nil, fmt.Errorf("GET %s: reading body: %w", b.URL(p), lastErr)
}

// head reads an object's metadata; a missing object is (nil, nil).
func (b *bucket) head(ctx context.Context, p string) (*object, error) {
	out, err := b.Client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.Name, Key: aws.String(b.Key(p))})
	if s3tree.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("HEAD %s: %w", b.URL(p), err)
	}
	return &object{size: aws.ToInt64(out.ContentLength), meta: out.Metadata, headers: headersOf(out.ContentType, out.CacheControl, out.ContentEncoding)}, nil
}

func headersOf(contentType, cacheControl, contentEncoding *string) Headers {
	return Headers{ContentType: aws.ToString(contentType), CacheControl: aws.ToString(cacheControl), ContentEncoding: aws.ToString(contentEncoding)}
}

// optional is s for a request's optional header: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// put stores body at p with its headers and metadata. The body is in
// memory, so the SDK can rewind it for every retry.
func (b *bucket) put(ctx context.Context, p string, body []byte, h Headers, meta map[string]string) error {
	in := &s3.PutObjectInput{
		Bucket:          &b.Name,
		Key:             aws.String(b.Key(p)),
		Body:            bytes.NewReader(body),
		ContentLength:   aws.Int64(int64(len(body))),
		Metadata:        meta,
		ContentType:     optional(h.ContentType),
		CacheControl:    optional(h.CacheControl),
		ContentEncoding: optional(h.ContentEncoding),
	}
	if _, err := b.Client.PutObject(ctx, in); err != nil {
		return fmt.Errorf("PUT %s: %w", b.URL(p), err)
	}
	return nil
}

// replaceMeta rewrites the user metadata of the object at p, which a GET
// read as obj, to meta: a server-side copy onto itself, so the body is
// neither sent nor changed. S3 replaces every header along with the
// metadata, so obj's are sent again: the ones upgraph stores (Headers) are
// kept exactly. The copy only happens while the object still is obj (same
// ETag): flagging an index.json that another run replaced meanwhile would
// mark the wrong generation.
func (b *bucket) replaceMeta(ctx context.Context, p string, obj *object, meta map[string]string) error {
	in := &s3.CopyObjectInput{
		Bucket:            &b.Name,
		Key:               aws.String(b.Key(p)),
		CopySource:        aws.String(b.Name + "/" + escapeKey(b.Key(p))),
		MetadataDirective: types.MetadataDirectiveReplace,
		Metadata:          meta,
		CopySourceIfMatch: optional(obj.etag),
		ContentType:       optional(obj.headers.ContentType),
		CacheControl:      optional(obj.headers.CacheControl),
		ContentEncoding:   optional(obj.headers.ContentEncoding),
	}
	if _, err := b.Client.CopyObject(ctx, in); err != nil {
		if isPreconditionFailed(err) {
			return fmt.Errorf("COPY %s: changed since it was read (another publish running?): %w", b.URL(p), err)
		}
		return fmt.Errorf("COPY %s: %w", b.URL(p), err)
	}
	return nil
}

// escapeKey URL-encodes a key for x-amz-copy-source, slashes kept; "+"
// too, which some stores decode as a space.
func escapeKey(k string) string {
	parts := strings.Split(k, "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(url.PathEscape(s), "+", "%2B")
	}
	return strings.Join(parts, "/")
}

// remove deletes p; deleting a missing object succeeds, as on S3.
func (b *bucket) remove(ctx context.Context, p string) error {
	_, err := b.Client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.Name, Key: aws.String(b.Key(p))})
	if err != nil && !s3tree.IsNotFound(err) {
		return fmt.Errorf("DELETE %s: %w", b.URL(p), err)
	}
	return nil
}

// list returns the tree paths of the objects under dir ("graph/").
func (b *bucket) list(ctx context.Context, dir string) ([]string, error) {
	prefix := b.Key(dir)
	var paths []string
	pages := s3.NewListObjectsV2Paginator(b.Client, &s3.ListObjectsV2Input{Bucket: &b.Name, Prefix: &prefix})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing s3://%s/%s: %w", b.Name, prefix, err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			if b.Prefix != "" {
				k = strings.TrimPrefix(k, b.Prefix+"/")
			}
			paths = append(paths, k)
		}
	}
	return paths, nil
}

func isPreconditionFailed(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "PreconditionFailed"
}
