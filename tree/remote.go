package tree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/internal/httpget"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// ErrNoIndex is wrapped by Open's error for an http(s) host that answers
// 404 (or 403, as S3 does for a missing key) for index.json: a graph
// endpoint such as upgraph serve or a policy-engine, or a mistyped URL.
var ErrNoIndex = errors.New("no " + manifest.FileName + " there")

// remoteTree reads each file with one request when it is asked for.
type remoteTree struct {
	name  string
	get   func(ctx context.Context, name string) ([]byte, error)
	index []byte
	m     *manifest.Manifest
	close func()
}

func openRemote(ctx context.Context, name string, get func(context.Context, string) ([]byte, error), closeFn func()) (*remoteTree, error) {
	index, err := get(ctx, manifest.FileName)
	if err != nil {
		closeFn()
		return nil, err
	}
	m, err := parseIndex(name, index)
	if err != nil {
		closeFn()
		return nil, err
	}
	return &remoteTree{name: name, get: get, index: index, m: m, close: closeFn}, nil
}

func (t *remoteTree) Manifest() *manifest.Manifest { return t.m }
func (t *remoteTree) Index() []byte                { return t.index }
func (t *remoteTree) String() string               { return t.name }
func (t *remoteTree) Close() error                 { t.close(); return nil }

func (t *remoteTree) ReadFile(ctx context.Context, name string) ([]byte, error) {
	if _, ok := t.m.Files[name]; !ok {
		return nil, fmt.Errorf("%s: %s is not listed in %s", t.name, name, manifest.FileName)
	}
	data, err := t.get(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := checkFile(t.m, name, data); err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return data, nil
}

// openHTTP reads a tree published as static files (a web server, an
// object store or a CDN in front of one): each file one GET, retried.
func openHTTP(ctx context.Context, l Location, opts Options) (Tree, error) {
	client, closeFn := opts.HTTP, func() {}
	if client == nil {
		c := httpget.DefaultClient(4)
		client, closeFn = c, c.CloseIdleConnections
	}
	g := &httpget.Getter{Client: client, Logger: opts.Logger}
	base := *l.URL
	get := func(ctx context.Context, name string) ([]byte, error) {
		data, err := g.Get(ctx, base.JoinPath(name).String())
		var se *httpget.StatusError
		if name == manifest.FileName && errors.As(err, &se) && (se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusForbidden) {
			return nil, fmt.Errorf("%s: %w (%w)", l.Raw, ErrNoIndex, err)
		}
		return data, err
	}
	return openRemote(ctx, l.Raw, get, closeFn)
}

// openS3 reads a tree published with upgraph publish: each file one
// GetObject.
func openS3(ctx context.Context, l Location, opts Options) (Tree, error) {
	client, err := s3tree.NewClient(ctx, opts.S3)
	if err != nil {
		return nil, err
	}
	get := func(ctx context.Context, name string) ([]byte, error) {
		return fs.ReadFile(s3tree.BucketFS(ctx, client, l.Bucket, l.Prefix), name)
	}
	return openRemote(ctx, l.Raw, get, func() {})
}
