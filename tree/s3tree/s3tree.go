// Package s3tree reads a tree where it lives in S3 or an S3-compatible
// store, s3://BUCKET/PREFIX: the objects under the prefix (Bucket), and
// the client it reads them with (NewClient), which publishing and
// following (site/publish) share.
//
// It sits below package tree, which opens s3:// trees through it, and
// below the serving layer.
package s3tree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// Bucket addresses the objects of one tree: tree path p lives at key
// Prefix/p of bucket Name.
type Bucket struct {
	Client *s3.Client
	Name   string
	Prefix string // no leading or trailing slash; "" for the bucket root
	// MaxObjectBytes bounds an object read whole (0:
	// DefaultMaxObjectBytes), so that a bucket holding something else
	// under a tree's name cannot make the reader hold it all in memory.
	MaxObjectBytes int64
}

// DefaultMaxObjectBytes bounds an object read whole, as internal/httpget
// bounds one answer of an http(s) tree: a real-scale tree's index.json is
// about 10 MiB, its largest file less.
const DefaultMaxObjectBytes = 256 << 20

// NewBucket returns the objects of bucket under prefix, however the
// prefix is slashed.
func NewBucket(client *s3.Client, bucket, prefix string) *Bucket {
	return &Bucket{Client: client, Name: bucket, Prefix: strings.Trim(prefix, "/")}
}

// Key is the object key of tree path p.
func (b *Bucket) Key(p string) string {
	if b.Prefix == "" {
		return p
	}
	return b.Prefix + "/" + p
}

// URL names the object of tree path p in errors and logs.
func (b *Bucket) URL(p string) string { return "s3://" + b.Name + "/" + b.Key(p) }

// ReadFile reads the object of tree path name whole, with one GetObject.
// A missing object is fs.ErrNotExist, a name fs.ValidPath refuses
// fs.ErrInvalid (without a request); errors are *fs.PathError naming the
// object's URL.
func (b *Bucket) ReadFile(ctx context.Context, name string) ([]byte, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	key := b.Key(name)
	out, err := b.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.Name, Key: &key})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ObjectError(b.Name, key, err)}
	}
	defer out.Body.Close()
	data, err := b.ReadBody(out, key)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// ReadBody reads the body of out, the answer to a GetObject of key,
// refusing with a *TooLargeError one of more than MaxObjectBytes: before
// reading when the store gives its length, else once that many bytes are
// read. Other errors name the object's URL.
func (b *Bucket) ReadBody(out *s3.GetObjectOutput, key string) ([]byte, error) {
	limit := b.MaxObjectBytes
	if limit <= 0 {
		limit = DefaultMaxObjectBytes
	}
	url := "s3://" + b.Name + "/" + key
	if n := out.ContentLength; n != nil && *n > limit {
		return nil, &TooLargeError{URL: url, Size: *n, Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{URL: url, Size: -1, Limit: limit}
	}
	return data, nil
}

// TooLargeError refuses an object of more than Limit bytes; reading it
// again will not help.
type TooLargeError struct {
	URL   string
	Size  int64 // -1 where the store did not give it
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: more than the %d bytes an object read whole may have", e.URL, e.Limit)
	}
	return fmt.Sprintf("%s: %d bytes, more than the %d an object read whole may have", e.URL, e.Size, e.Limit)
}

// ObjectError names the object s3://BUCKET/KEY in an error of a request
// about it, wrapping fs.ErrNotExist for a missing object (IsNotFound: not
// a missing bucket), so that callers see "file does not exist".
func ObjectError(bucket, key string, err error) error {
	if IsNotFound(err) {
		return fmt.Errorf("s3://%s/%s: %w", bucket, key, fs.ErrNotExist)
	}
	return fmt.Errorf("s3://%s/%s: %w", bucket, key, err)
}

// IsNotFound reports whether err answers a request about a missing
// object, told from a missing bucket, which must not pass for a first
// publish.
func IsNotFound(err error) bool {
	if err == nil {
		return false
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		case "NoSuchBucket":
			return false
		}
	}
	var status interface{ HTTPStatusCode() int }
	return errors.As(err, &status) && status.HTTPStatusCode() == 404
}
