// Package s3tree reads a tree where it lives in S3 or an S3-compatible
// store, s3://BUCKET/PREFIX: a read-only fs.FS over the objects under the
// prefix (BucketFS), and the client it reads with (NewClient),
// which publishing and following (site/publish) share.
//
// It sits below package tree, which opens s3:// trees through it, and
// below the serving layer.
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
