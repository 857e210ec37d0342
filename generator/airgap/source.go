package airgap

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/mirror"
	"github.com/upgraph/upgraph/tree"
)

// input is what Mirror reads: the selected graph, and the tree it came
// from when there is one (signatures and provenance are read from it).
type input struct {
	tree *mirror.Tree
	// files is the source tree; nil for a graph endpoint.
	files tree.Tree
	// generatedAt is the source generation's time; zero for an endpoint.
	generatedAt time.Time
	close       func() error
}

// openSource reads opts.From, a tree wherever it lives or a graph
// endpoint (mirror.OpenSource).
func openSource(ctx context.Context, opts Options) (*input, error) {
	src, err := mirror.OpenSource(ctx, opts.From, mirror.SourceOptions{Tree: opts.Tree, Client: opts.Client, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	if !src.IsTree() {
		return openEndpoint(ctx, src.Endpoint(), opts)
	}
	in, err := fromTree(ctx, src.Tree, opts)
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("%s: %w", opts.From, err)
	}
	return in, nil
}

func fromTree(ctx context.Context, src tree.Tree, opts Options) (*input, error) {
	topts := mirror.TreeOptions{Channels: opts.Channels, Arches: opts.Arches, Workers: opts.Workers, Logger: opts.Logger}
	t, err := mirror.FromTree(ctx, src, topts)
	if err != nil {
		return nil, err
	}
	at, err := time.Parse(time.RFC3339, t.Manifest.GeneratedAt)
	if err != nil {
		return nil, fmt.Errorf("%s: generatedAt: %w", manifest.FileName, err)
	}
	return &input{tree: t, files: src, generatedAt: at, close: src.Close}, nil
}

// openEndpoint fetches a policy-engine's graphs. It has no list of its
// channels, so they are named (Options.EndpointChannels), and no
// signatures.
func openEndpoint(ctx context.Context, endpoint string, opts Options) (*input, error) {
	var channels []string
	for _, c := range opts.EndpointChannels {
		if opts.Channels == nil || opts.Channels.MatchString(c) {
			channels = append(channels, c)
		}
	}
	if len(channels) == 0 {
		return nil, fmt.Errorf("%s is a graph endpoint, which does not list its channels: name them (--channels)", endpoint)
	}
	arches := opts.Arches
	if arches == nil {
		arches = mirror.DefaultArches
	}
	g, err := mirror.Fetch(ctx, mirror.Options{URL: endpoint, Channels: channels, Arches: arches, Workers: opts.Workers, Client: opts.Client, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	// Without --arch, arches the endpoint has no releases for are dropped
	// rather than published as empty graphs.
	if opts.Arches == nil {
		arches = g.Arches()
	}
	opts.Logger.Info("endpoint mirrored without release signatures: a graph endpoint does not list them", "endpoint", endpoint)
	return &input{tree: &mirror.Tree{Graph: g, Channels: channels, Arches: slices.Clone(arches)}, close: func() error { return nil }}, nil
}
