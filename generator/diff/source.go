package diff

import (
	"context"
	"net/http"

	"github.com/upgraph/upgraph/generator/graphsource"
)

// Source is one side of a comparison: a generated tree (directory, static
// http(s) host or s3:// bucket), read through its index.json, or a
// policy-engine endpoint, which serves graphs but cannot list its
// channels (see generator/graphsource).
type Source struct{ *graphsource.Source }

type pair struct{ channel, arch string }

// OpenOptions configure Open.
type OpenOptions struct {
	// Client for http(s) sources (nil: one with connect and overall
	// timeouts).
	Client *http.Client
}

// Open opens what `upgraph diff` is given (see graphsource.Open). ctx
// bounds every request made through the source.
func Open(ctx context.Context, spec string, opts OpenOptions) (*Source, error) {
	s, err := graphsource.Open(ctx, spec, opts.Client)
	if err != nil {
		return nil, err
	}
	return &Source{s}, nil
}

// read returns the channel × arch graph, or nil for one a tree lacks.
func (s *Source) read(ctx context.Context, p pair) (*document, error) {
	if !s.HasGraph(p.channel, p.arch) {
		return nil, nil
	}
	label, data, err := s.Fetch(ctx, p.channel, p.arch)
	if err != nil {
		return nil, err
	}
	return decode(label, data)
}
