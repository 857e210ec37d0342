package tree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"github.com/upgraph/upgraph/internal/httpget"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// ErrNoIndex is wrapped by Open's error for an http(s) host that answers
// 404 (or 403, as S3 does for a missing key) for index.json: a graph
// endpoint such as upgraph serve or a policy-engine, or a mistyped URL.
var ErrNoIndex = errors.New("no " + manifest.FileName + " there")

// openRemote opens a tree whose files get reads, each with one request
// when it is asked for; closeFn releases what get uses.
func openRemote(ctx context.Context, name string, get func(context.Context, string) ([]byte, error), closeFn func() error) (Tree, error) {
	index, err := get(ctx, manifest.FileName)
	var m *manifest.Manifest
	if err == nil {
		if m, err = manifest.Parse(index); err != nil {
			err = fmt.Errorf("%s: %s: %w", name, manifest.FileName, err)
		}
	}
	if err != nil {
		closeFn()
		return nil, err
	}
	return &opened{name: name, index: index, m: m, read: get, close: closeFn}, nil
}

// openHTTP reads a tree published as static files (a web server, an
// object store or a CDN in front of one): each file one GET, retried.
func openHTTP(ctx context.Context, l Location, opts Options) (Tree, error) {
	// httpget's client, with timeouts on every phase.
	client := httpget.DefaultClient(4)
	closeFn := func() error { client.CloseIdleConnections(); return nil }
	g := &httpget.Getter{Client: client, Logger: opts.Logger}
	base := *l.URL
	get := func(ctx context.Context, name string) ([]byte, error) {
		data, err := g.Get(ctx, base.JoinPath(name).String())
		var se *httpget.StatusError
		missing := errors.As(err, &se) && (se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusForbidden)
		switch {
		case missing && name == manifest.FileName:
			return nil, fmt.Errorf("%s: %w (%w)", l.Raw, ErrNoIndex, err)
		case missing:
			// A metadata file a tree does not have (tree/sign asks for
			// the next root until there is none).
			return nil, fmt.Errorf("%s: %w (%w)", name, fs.ErrNotExist, err)
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
	return openRemote(ctx, l.Raw, s3tree.NewBucket(client, l.Bucket, l.Prefix).ReadFile, func() error { return nil })
}
