package mirror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/upgraph/upgraph/internal/httpget"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Source is what the commands that read graphs (diff, path, dot, mirror)
// are given: a tree wherever it lives (package tree), or a Cincinnati
// graph endpoint, which serves graphs but cannot list its channels.
type Source struct {
	// Tree is nil for an endpoint.
	Tree   tree.Tree
	name   string
	graphs map[[2]string]string // channel, arch → file
	// Endpoint is an endpoint's graph URL, "" for a tree.
	Endpoint string
	get      *httpget.Getter
	hint     string // added to an endpoint's errors
}

// SourceOptions configure OpenSource.
type SourceOptions struct {
	Tree   tree.Options
	Logger *slog.Logger
}

// OpenSource opens a tree at spec (tree.ParseLocation), or a graph
// endpoint: an http(s) URL whose path ends in /graph, or a host with no
// index.json (upgraph serve, a policy-engine), whose graphs are read at
// URL/api/upgrades_info/v1/graph (a bare host) or URL/graph.
func OpenSource(ctx context.Context, spec string, opts SourceOptions) (*Source, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Tree.Logger == nil {
		opts.Tree.Logger = opts.Logger
	}
	loc, err := tree.ParseLocation(spec)
	if err != nil {
		return nil, err
	}
	if loc.Kind == tree.KindEndpoint {
		return openEndpoint(spec, loc.URL, opts), nil
	}
	t, err := loc.Open(ctx, opts.Tree)
	if loc.Kind == tree.KindHTTP && errors.Is(err, tree.ErrNoIndex) {
		u := loc.URL.JoinPath("graph")
		if strings.Trim(loc.URL.Path, "/") == "" {
			u = loc.URL.JoinPath("api/upgrades_info/v1/graph")
		}
		opts.Logger.Info("no index.json: reading the host as a graph endpoint", "from", spec, "endpoint", u.String())
		s := openEndpoint(spec, u, opts)
		// A mistyped tree URL fails as an endpoint; say why one was tried.
		s.hint = " (" + spec + " has no " + manifest.FileName + ", so it was read as a graph endpoint)"
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	s := &Source{Tree: t, name: spec, graphs: map[[2]string]string{}}
	for _, g := range t.Manifest().Graphs {
		s.graphs[[2]string{g.Channel, g.Arch}] = g.Path
	}
	return s, nil
}

// openEndpoint reads graphs at u, an http(s) URL with a host
// (tree.ParseLocation checked it).
func openEndpoint(name string, u *url.URL, opts SourceOptions) *Source {
	return &Source{name: name, Endpoint: u.String(), get: &httpget.Getter{Logger: opts.Logger}}
}

func (s *Source) String() string { return s.name }

// IsTree tells a tree from an endpoint.
func (s *Source) IsTree() bool { return s.Tree != nil }

// Close closes a tree.
func (s *Source) Close() error {
	if s.Tree == nil {
		return nil
	}
	return s.Tree.Close()
}

// HasGraph reports whether a tree lists the channel × arch graph; an
// endpoint answers every valid channel and arch.
func (s *Source) HasGraph(channel, arch string) bool {
	_, ok := s.graphs[[2]string{channel, arch}]
	return !s.IsTree() || ok
}

// Fetch returns the channel × arch graph document and a label naming it
// for decoding errors. A tree must list the graph (HasGraph); its file is
// checked against index.json.
func (s *Source) Fetch(ctx context.Context, channel, arch string) (label string, data []byte, err error) {
	if s.IsTree() {
		file, ok := s.graphs[[2]string{channel, arch}]
		if !ok {
			return "", nil, fmt.Errorf("%s lists no graph for channel %s, arch %s", s.name, channel, arch)
		}
		data, err := s.Tree.ReadFile(ctx, file)
		if err != nil {
			return "", nil, err
		}
		return s.name + ": " + file, data, nil
	}
	u := requestURL(s.Endpoint, channel, arch)
	data, err = s.get.Get(ctx, u)
	if err != nil && s.hint != "" {
		err = fmt.Errorf("%w%s", err, s.hint)
	}
	return u, data, err
}
