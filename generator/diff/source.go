package diff

import (
	"context"

	"github.com/upgraph/upgraph/generator/mirror"
)

// Source is one side of a comparison: a tree wherever it lives or a
// graph endpoint (mirror.OpenSource).
type Source = mirror.Source

type pair struct{ channel, arch string }

// read returns the channel × arch graph, or nil for one a tree lacks.
func read(ctx context.Context, s *Source, p pair) (*document, error) {
	if !s.HasGraph(p.channel, p.arch) {
		return nil, nil
	}
	label, data, err := s.Fetch(ctx, p.channel, p.arch)
	if err != nil {
		return nil, err
	}
	return decode(label, data)
}
