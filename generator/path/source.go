package path

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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/mirror"
	"github.com/upgraph/upgraph/generator/version"
	"github.com/upgraph/upgraph/site/publish"
)

// maxBody bounds one endpoint answer: the largest public channel graphs
// are a few MiB.
const maxBody = 256 << 20

// Source is where channel graphs are read from: a generated tree (a
// directory or a static http(s) host serving one, read through its
// index.json, every file checked against its digest there) or a
// policy-engine endpoint, which cannot list its channels. It accepts what
// `upgraph diff` accepts for a side (generator/diff.Open).
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
// s3://BUCKET/PREFIX a tree was published to (publish.OpenURL: the client
// options come from publish.WithClientOptions in ctx). client may be
// nil. ctx bounds every request made through the source.
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
		// The client comes from publish.WithClientOptions in ctx.
		fsys, err := publish.OpenURL(ctx, spec)
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
			s.hint = " (" + spec + " has no " + manifest.FileName + ", so it was read as a graph endpoint)"
		}
	}
	return s, err
}

// OpenTree opens a tree on any file system; name stands for it in errors.
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

// OpenEndpoint opens a policy-engine graph endpoint; channel and arch are
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

// Channels returns a tree's channels, in its index.json's order, and
// false for an endpoint, which cannot list them.
func (s *Source) Channels() ([]string, bool) {
	if s.manifest == nil {
		return nil, false
	}
	return s.manifest.Channels, true
}

// Read returns the channel × arch graph. A tree without that channel or
// arch is an error naming those it has (an endpoint answers an empty
// graph for a channel it does not know, as policy-engines do).
func (s *Source) Read(ctx context.Context, channel, arch string) (*Graph, error) {
	if s.manifest != nil {
		file, ok := s.graphs[[2]string{channel, arch}]
		switch {
		case ok:
		case !slices.Contains(s.manifest.Channels, channel):
			return nil, fmt.Errorf("%s has no channel %q (it has %s)", s.name, channel, strings.Join(s.manifest.Channels, ", "))
		case !slices.Contains(s.manifest.Arches, arch):
			return nil, fmt.Errorf("%s has no arch %q (it has %s)", s.name, arch, strings.Join(s.manifest.Arches, ", "))
		default:
			return nil, fmt.Errorf("%s lists no graph for channel %s, arch %s", s.name, channel, arch)
		}
		data, err := mirror.ReadChecked(s.fsys, s.manifest, file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		return Decode(s.name+": "+file, data)
	}
	u := *s.endpoint
	q := u.Query()
	q.Set("channel", channel)
	q.Set("arch", arch)
	u.RawQuery = q.Encode()
	data, err := s.get(ctx, u.String())
	if err != nil {
		return nil, err
	}
	return Decode(u.String(), data)
}

func (s *Source) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
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

// EUSChannels returns the EUS channels `--via-eus` adds for a path from
// one version to another: every "eus-X.Y" among channels (a tree's, in
// their order) whose X.Y lies between from's major.minor and to's,
// both included. With channels nil (an endpoint, which cannot list its
// channels) it names the candidates instead: eus-X.Y for every minor Y
// from one end's to the other's when both have the same major X, the two
// ends' X.Y otherwise. Unparsable versions give none.
func EUSChannels(channels []string, from, to string) []string {
	a, errA := version.Parse(from)
	b, errB := version.Parse(to)
	if errA != nil || errB != nil {
		return nil
	}
	lo, hi := [2]uint64{a.Major(), a.Minor()}, [2]uint64{b.Major(), b.Minor()}
	if compareMinor(lo, hi) > 0 {
		lo, hi = hi, lo
	}
	if channels == nil {
		var out []string
		if lo[0] != hi[0] {
			for _, m := range [][2]uint64{lo, hi} {
				out = append(out, fmt.Sprintf("eus-%d.%d", m[0], m[1]))
			}
			return out
		}
		for y := lo[1]; y <= hi[1]; y++ {
			out = append(out, fmt.Sprintf("eus-%d.%d", lo[0], y))
		}
		return out
	}
	var out []string
	for _, c := range channels {
		m, ok := eusMinor(c)
		if ok && compareMinor(lo, m) <= 0 && compareMinor(m, hi) <= 0 {
			out = append(out, c)
		}
	}
	return out
}

// eusMinor parses "eus-X.Y".
func eusMinor(channel string) ([2]uint64, bool) {
	rest, ok := strings.CutPrefix(channel, "eus-")
	if !ok {
		return [2]uint64{}, false
	}
	xs, ys, ok := strings.Cut(rest, ".")
	x, errX := strconv.ParseUint(xs, 10, 64)
	y, errY := strconv.ParseUint(ys, 10, 64)
	if !ok || errX != nil || errY != nil {
		return [2]uint64{}, false
	}
	return [2]uint64{x, y}, true
}

func compareMinor(a, b [2]uint64) int { return slices.Compare(a[:], b[:]) }
