package publish

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// BucketFS returns a read-only file system over the objects of bucket
// under prefix: name N is the object PREFIX/N, read whole with one
// GetObject. A missing object is fs.ErrNotExist. Directories are not
// listed (trees are read through their index.json). ctx bounds every
// request made through it.
func BucketFS(ctx context.Context, client *s3.Client, bucket, prefix string) fs.FS {
	return &bucketFS{ctx: ctx, client: client, bucket: bucket, prefix: trimSlashes(prefix)}
}

type bucketFS struct {
	ctx            context.Context
	client         *s3.Client
	bucket, prefix string
}

var _ fs.ReadFileFS = (*bucketFS)(nil)

func trimSlashes(s string) string {
	for len(s) > 0 && s[0] == '/' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

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
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: name, Err: objectErr(b.bucket, key, err)}
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

// objectErr wraps fs.ErrNotExist for a missing object (isNotFound: not
// a missing bucket), so that callers see "file does not exist".
func objectErr(bucket, key string, err error) error {
	if isNotFound(err) {
		return fmt.Errorf("s3://%s/%s: %w", bucket, key, fs.ErrNotExist)
	}
	return fmt.Errorf("s3://%s/%s: %w", bucket, key, err)
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
