// Package graphsource reads channel × arch graphs from wherever a tree or
// a graph API lives: a tree directory, a static http(s) host or an
// s3:// bucket serving one (read through its index.json, every file
// checked against its digest there), or a policy-engine endpoint, which
// serves graphs but cannot list its channels. `upgraph diff`, `path` and
// `dot` all read their inputs through it.
package graphsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/mirror"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// maxBody bounds one endpoint answer: the largest public channel graphs
// are a few MiB.
const maxBody = 256 << 20

// Source is a tree or an endpoint.
type Source struct {
	name string
	// A tree has these.
	fsys     fs.FS
	manifest *manifest.Manifest
	graphs   map[[2]string]string // channel, arch → file
	// An endpoint has these.
	endpoint *url.URL
	client   *http.Client
	hint     string // added to an endpoint's errors
}

func (s *Source) String() string { return s.name }

// Open opens a tree directory, or an http(s) URL: of a static host serving
// a tree (it has /index.json), or of a policy-engine, whose graph
// endpoint is URL/graph unless URL already ends in /graph; or an
// s3://BUCKET/PREFIX a tree was published to (s3tree.OpenURL: the client
// options come from s3tree.WithClientOptions in ctx). client may be nil
// (one with connect and overall timeouts). ctx bounds every request made
// through the source.
func Open(ctx context.Context, spec string, client *http.Client) (*Source, error) {
	scheme, _, hasScheme := strings.Cut(spec, "://")
	switch {
	case !hasScheme:
		st, err := os.Stat(spec)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (want a tree written by upgraph generate)", spec)
		}
		return OpenTree(spec, os.DirFS(spec))
	case scheme == "s3":
		fsys, err := s3tree.OpenURL(ctx, spec)
		if err != nil {
			return nil, err
		}
		return OpenTree(spec, fsys)
	case scheme != "http" && scheme != "https":
		return nil, fmt.Errorf("%s: want a directory or an http:// or https:// URL", spec)
	}
	if client == nil {
		client = defaultClient()
	}
	u, err := url.Parse(spec)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/graph") {
		return OpenEndpoint(spec, spec, client)
	}
	fsys, err := mirror.NewHTTPTree(ctx, spec, mirror.HTTPTreeOptions{Client: client})
	if err != nil {
		return nil, err
	}
	s, err := OpenTree(spec, fsys)
	if errors.Is(err, fs.ErrNotExist) {
		if s, err = OpenEndpoint(spec, u.JoinPath("graph").String(), client); err == nil {
			// A mistyped tree URL fails as an endpoint; say why one was tried.
			s.hint = " (" + spec + " has no " + manifest.FileName + ", so it was read as a graph endpoint)"
		}
	}
	return s, err
}

// OpenTree opens a tree on any file system; name stands for it in output.
func OpenTree(name string, fsys fs.FS) (*Source, error) {
	index, err := fs.ReadFile(fsys, manifest.FileName)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m, err := manifest.Parse(index)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", name, manifest.FileName, err)
	}
	s := &Source{name: name, fsys: fsys, manifest: m, graphs: make(map[[2]string]string, len(m.Graphs))}
	for _, g := range m.Graphs {
		s.graphs[[2]string{g.Channel, g.Arch}] = g.Path
	}
	return s, nil
}

// OpenEndpoint opens a policy-engine graph endpoint such as
// https://api.openshift.com/api/upgrades_info/graph; channel and arch are
// added to its query.
func OpenEndpoint(name, graphURL string, client *http.Client) (*Source, error) {
	u, err := url.Parse(graphURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("graph endpoint %q: want http:// or https:// and a host", graphURL)
	}
	if client == nil {
		client = defaultClient()
	}
	return &Source{name: name, endpoint: u, client: client}, nil
}

// Manifest is a tree's index.json, nil for an endpoint.
func (s *Source) Manifest() *manifest.Manifest { return s.manifest }

// IsTree tells a tree from an endpoint.
func (s *Source) IsTree() bool { return s.manifest != nil }

// HasGraph reports whether a tree lists the channel × arch graph; an
// endpoint answers every valid channel and arch.
func (s *Source) HasGraph(channel, arch string) bool {
	_, ok := s.graphs[[2]string{channel, arch}]
	return !s.IsTree() || ok
}

// Fetch returns the channel × arch graph document and a label naming it
// for decoding errors. A tree must list the graph (HasGraph); its file is
// checked against index.json, so that a tree copied or fetched halfway is
// an error.
func (s *Source) Fetch(ctx context.Context, channel, arch string) (label string, data []byte, err error) {
	if s.IsTree() {
		file, ok := s.graphs[[2]string{channel, arch}]
		if !ok {
			return "", nil, fmt.Errorf("%s lists no graph for channel %s, arch %s", s.name, channel, arch)
		}
		data, err := mirror.ReadChecked(s.fsys, s.manifest, file)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", s.name, err)
		}
		return s.name + ": " + file, data, nil
	}
	u := *s.endpoint
	q := u.Query()
	q.Set("channel", channel)
	q.Set("arch", arch)
	u.RawQuery = q.Encode()
	data, err = s.get(ctx, u.String())
	return u.String(), data, err
}

func (s *Source) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	// Upstream's default media type is its own; application/json is the
	// one every policy-engine and proxy in front of one accepts.
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %q%s", u, resp.Status, body[:min(len(body), 200)], s.hint)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("GET %s: answer larger than %d MiB", u, maxBody>>20)
	}
	return body, nil
}

// defaultClient has timeouts for every phase, so an endpoint that stops
// answering fails the command instead of hanging it.
func defaultClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: time.Minute,
			ForceAttemptHTTP2:     true,
		},
		Timeout: 5 * time.Minute,
	}
}
