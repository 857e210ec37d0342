package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// bucket addresses the objects of one published tree: tree path p lives at
// key prefix/p.
type bucket struct {
	client *s3.Client
	name   string
	prefix string // no leading or trailing slash; "" for the bucket root
}

func (b *bucket) key(p string) string {
	if b.prefix == "" {
		return p
	}
	return b.prefix + "/" + p
}

// url names an object in errors and logs.
func (b *bucket) url(p string) string { return "s3://" + b.name + "/" + b.key(p) }

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
		out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.name, Key: aws.String(b.key(p))})
		if s3tree.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", b.url(p), err)
		}
		body, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err == nil {
			return &object{body: body, etag: aws.ToString(out.ETag), meta: out.Metadata, headers: Headers{
				ContentType:     aws.ToString(out.ContentType),
				CacheControl:    aws.ToString(out.CacheControl),
				ContentEncoding: aws.ToString(out.ContentEncoding),
			}}, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("GET %s: %w", b.url(p), ctx.Err())
		}
		lastErr = err
	}
	return nil, fmt.Errorf("GET %s: reading body: %w", b.url(p), lastErr)
}

// head reads an object's metadata; a missing object is (nil, nil).
func (b *bucket) head(ctx context.Context, p string) (*object, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.name, Key: aws.String(b.key(p))})
	if s3tree.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("HEAD %s: %w", b.url(p), err)
	}
	return &object{size: aws.ToInt64(out.ContentLength), meta: out.Metadata, headers: Headers{
		ContentType:     aws.ToString(out.ContentType),
		CacheControl:    aws.ToString(out.CacheControl),
		ContentEncoding: aws.ToString(out.ContentEncoding),
	}}, nil
}

// put stores body at p with its headers and metadata. The body is in
// memory, so the SDK can rewind it for every retry.
func (b *bucket) put(ctx context.Context, p string, body []byte, h Headers, meta map[string]string) error {
	in := &s3.PutObjectInput{
		Bucket:        &b.name,
		Key:           aws.String(b.key(p)),
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
		Metadata:      meta,
	}
	if h.ContentType != "" {
		in.ContentType = aws.String(h.ContentType)
	}
	if h.CacheControl != "" {
		in.CacheControl = aws.String(h.CacheControl)
	}
	if h.ContentEncoding != "" {
		in.ContentEncoding = aws.String(h.ContentEncoding)
	}
	if _, err := b.client.PutObject(ctx, in); err != nil {
		return fmt.Errorf("PUT %s: %w", b.url(p), err)
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
		Bucket:            &b.name,
		Key:               aws.String(b.key(p)),
		CopySource:        aws.String(b.name + "/" + escapeKey(b.key(p))),
		MetadataDirective: types.MetadataDirectiveReplace,
		Metadata:          meta,
	}
	if obj.etag != "" {
		in.CopySourceIfMatch = aws.String(obj.etag)
	}
	if h := obj.headers; h.ContentType != "" {
		in.ContentType = aws.String(h.ContentType)
	}
	if h := obj.headers; h.CacheControl != "" {
		in.CacheControl = aws.String(h.CacheControl)
	}
	if h := obj.headers; h.ContentEncoding != "" {
		in.ContentEncoding = aws.String(h.ContentEncoding)
	}
	if _, err := b.client.CopyObject(ctx, in); err != nil {
		if isPreconditionFailed(err) {
			return fmt.Errorf("COPY %s: changed since it was read (another publish running?): %w", b.url(p), err)
		}
		return fmt.Errorf("COPY %s: %w", b.url(p), err)
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
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.name, Key: aws.String(b.key(p))})
	if err != nil && !s3tree.IsNotFound(err) {
		return fmt.Errorf("DELETE %s: %w", b.url(p), err)
	}
	return nil
}

// list returns the tree paths of the objects under dir ("graph/").
func (b *bucket) list(ctx context.Context, dir string) ([]string, error) {
	prefix := b.key(dir)
	var paths []string
	pages := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.name, Prefix: &prefix})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing s3://%s/%s: %w", b.name, prefix, err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			if b.prefix != "" {
				k = strings.TrimPrefix(k, b.prefix+"/")
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
