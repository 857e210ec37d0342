package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"time"
)

// HTTPTreeOptions configure NewHTTPTree; zero values get Fetch's defaults.
type HTTPTreeOptions struct {
	Client   *http.Client
	Attempts int
	Backoff  time.Duration
	Logger   *slog.Logger
}

// NewHTTPTree returns a tree published as static files (a web server, an
// object store or a CDN in front of one) under base as an fs.FS for
// FromTree. Each Open is one GET of base/name, retried like Fetch's
// requests; a 404 is fs.ErrNotExist, so a caller can tell a host without
// an index.json (a policy-engine, `upgraph serve`) from one that fails.
// ctx bounds every request, since fs.FS has no context of its own.
func NewHTTPTree(ctx context.Context, base string, opts HTTPTreeOptions) (fs.FS, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tree URL %q: want http:// or https:// and a host", base)
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	if opts.Client == nil {
		opts.Client = defaultClient(4)
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	f := &fetcher{client: opts.Client, attempts: opts.Attempts, backoff: opts.Backoff, log: opts.Logger}
	return &httpTree{ctx: ctx, base: u, f: f}, nil
}

type httpTree struct {
	ctx  context.Context
	base *url.URL
	f    *fetcher
}

func (t *httpTree) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	u := t.base.JoinPath(name).String()
	body, err := t.f.get(t.ctx, u)
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && (se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusForbidden) {
			// S3 answers 403 for a missing key when listing is not allowed.
			err = fmt.Errorf("%w: %w", fs.ErrNotExist, err)
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &httpFile{name: name, Reader: bytes.NewReader(body), size: int64(len(body))}, nil
}

// httpFile is a fetched body; only what fs.ReadFile needs.
type httpFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *httpFile) Stat() (fs.FileInfo, error) { return fileInfo{f}, nil }
func (f *httpFile) Close() error               { return nil }

type fileInfo struct{ f *httpFile }

func (i fileInfo) Name() string       { return path.Base(i.f.name) }
func (i fileInfo) Size() int64        { return i.f.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }
