package diff

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
	"github.com/upgraph/upgraph/site/publish"
)

// maxBody bounds one endpoint answer: the largest public channel graphs
// are a few MiB.
const maxBody = 256 << 20

// Source is one side of a comparison: a generated tree, read through its
// index.json, or a policy-engine endpoint, which serves graphs but cannot
// list its channels.
type Source struct {
	name string
	// A tree has these two.
	fsys     fs.FS
	manifest *manifest.Manifest
	graphs   map[pair]string // path of each channel × arch graph
	// An endpoint has these two.
	endpoint *url.URL
	client   *http.Client
	hint     string // added to an endpoint's errors
}

type pair struct{ channel, arch string }

func (s *Source) String() string { return s.name }

func (s *Source) isTree() bool { return s.manifest != nil }

// OpenOptions configure Open.
type OpenOptions struct {
	// Client for http(s) sources (nil: one with connect and overall
	// timeouts).
	Client *http.Client
}

// Open opens what `upgraph diff` is given: a tree directory, or an
// http(s) URL of a static host serving a tree (it has /index.json) or of
// a policy-engine (it does not: `upgraph serve`, upstream), whose graph
// endpoint is URL/graph unless URL already ends in /graph, or an
// s3://BUCKET/PREFIX a tree was published to (publish.OpenURL: the client
// options come from publish.WithClientOptions in ctx). ctx bounds every
// request made through the source.
func Open(ctx context.Context, spec string, opts OpenOptions) (*Source, error) {
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
		// The client comes from publish.WithClientOptions in ctx.
		fsys, err := publish.OpenURL(ctx, spec)
		if err != nil {
			return nil, err
		}
		return OpenTree(spec, fsys)
	case scheme != "http" && scheme != "https":
		return nil, fmt.Errorf("%s: want a directory or an http:// or https:// URL", spec)
	}
	client := opts.Client
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
	s := &Source{name: name, fsys: fsys, manifest: m, graphs: make(map[pair]string, len(m.Graphs))}
	for _, g := range m.Graphs {
		s.graphs[pair{g.Channel, g.Arch}] = g.Path
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

// read returns the channel × arch graph, or nil for one a tree lacks.
func (s *Source) read(ctx context.Context, p pair) (*document, error) {
	if s.isTree() {
		file, ok := s.graphs[p]
		if !ok {
			return nil, nil
		}
		// Checked against index.json so that a tree copied or fetched
		// halfway is an error rather than a difference.
		data, err := mirror.ReadChecked(s.fsys, s.manifest, file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		return decode(s.name+": "+file, data)
	}
	u := *s.endpoint
	q := u.Query()
	q.Set("channel", p.channel)
	q.Set("arch", p.arch)
	u.RawQuery = q.Encode()
	data, err := s.get(ctx, u.String())
	if err != nil {
		return nil, err
	}
	return decode(u.String(), data)
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
// answering fails the diff instead of hanging it.
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
