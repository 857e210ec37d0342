// Package s3tree reads a tree where it lives in S3 or an S3-compatible
// store, s3://BUCKET/PREFIX: a read-only fs.FS over the objects under the
// prefix (BucketFS, OpenURL), and the client it reads with (NewClient),
// which publishing and following (site/publish) share.
//
// It sits beside the pipeline library and below the serving layer: the
// readers of trees (generator/bundle, generator/graphsource) open s3://
// sources through it without importing site.
package s3tree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// BucketFS returns a read-only file system over the objects of bucket
// under prefix: name N is the object PREFIX/N, read whole with one
// GetObject. A missing object is fs.ErrNotExist. Directories are not
// listed (trees are read through their index.json). ctx bounds every
// request made through it.
func BucketFS(ctx context.Context, client *s3.Client, bucket, prefix string) fs.FS {
	return &bucketFS{ctx: ctx, client: client, bucket: bucket, prefix: strings.Trim(prefix, "/")}
}

type bucketFS struct {
	ctx            context.Context
	client         *s3.Client
	bucket, prefix string
}

var _ fs.ReadFileFS = (*bucketFS)(nil)

func (b *bucketFS) key(name string) string {
	if b.prefix == "" {
		return name
	}
	return b.prefix + "/" + name
}

func (b *bucketFS) ReadFile(name string) ([]byte, error) {
	data, _, err := b.get(name)
	return data, err
}

func (b *bucketFS) get(name string) ([]byte, time.Time, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	key := b.key(name)
	out, err := b.client.GetObject(b.ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: name, Err: ObjectError(b.bucket, key, err)}
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, time.Time{}, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("s3://%s/%s: %w", b.bucket, key, err)}
	}
	var mod time.Time
	if out.LastModified != nil {
		mod = *out.LastModified
	}
	return data, mod, nil
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

func (b *bucketFS) Open(name string) (fs.File, error) {
	data, mod, err := b.get(name)
	if err != nil {
		return nil, err
	}
	return &bucketFile{Reader: bytes.NewReader(data), info: fileInfo{name: path.Base(name), size: int64(len(data)), mod: mod}}, nil
}

type bucketFile struct {
	*bytes.Reader
	info fileInfo
}

func (f *bucketFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *bucketFile) Close() error               { return nil }

type fileInfo struct {
	name string
	size int64
	mod  time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return i.mod }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

type clientOptionsKey struct{}

// WithClientOptions returns ctx carrying the options OpenURL builds its
// client with: how commands pass --endpoint, --region and --path-style
// down to the readers of s3:// sources.
func WithClientOptions(ctx context.Context, o ClientOptions) context.Context {
	return context.WithValue(ctx, clientOptionsKey{}, o)
}

// OpenURL opens "s3://BUCKET/PREFIX" as a BucketFS, with a client built by
// NewClient from the options WithClientOptions put in ctx (none: the
// standard AWS configuration).
func OpenURL(ctx context.Context, url string) (fs.FS, error) {
	bucket, prefix, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	o, _ := ctx.Value(clientOptionsKey{}).(ClientOptions)
	client, err := NewClient(ctx, o)
	if err != nil {
		return nil, err
	}
	return BucketFS(ctx, client, bucket, prefix), nil
}
