package airgap

import (
	"context"
	"fmt"
	"slices"

	"github.com/upgraph/upgraph/release/mirror"
)

// openSource reads opts.From, a tree wherever it lives or a graph
// endpoint (mirror.OpenSource): the selected graph, and the source, the
// caller's to close, whose tree (nil for an endpoint) signatures and
// provenance are read from.
func openSource(ctx context.Context, opts Options) (*mirror.Tree, *mirror.Source, error) {
	src, err := mirror.OpenSource(ctx, opts.From, mirror.SourceOptions{Tree: opts.Tree, Logger: opts.Logger})
	if err != nil {
		return nil, nil, err
	}
	if !src.IsTree() {
		if opts.Verify != nil {
			src.Close()
			return nil, nil, fmt.Errorf("%s is a graph endpoint, which carries no TUF metadata to verify: only a tree can be required to be signed", opts.From)
		}
		t, err := openEndpoint(ctx, src.Endpoint, opts)
		return t, src, err
	}
	if opts.Verify != nil {
		// Before anything is read from it: every later read is checked
		// against index.json, which this checks against signed targets.
		if err := opts.Verify(ctx, src.Tree); err != nil {
			src.Close()
			return nil, nil, err
		}
	}
	// A tree of catalogs alone has no release graph to read.
	if m := src.Tree.Manifest(); len(m.Channels) == 0 && len(m.Catalogs) > 0 && opts.Channels == nil && opts.Arches == nil {
		return &mirror.Tree{Manifest: m}, src, nil
	}
	topts := mirror.TreeOptions{Channels: opts.Channels, Arches: opts.Arches, Workers: opts.Workers, Logger: opts.Logger}
	t, err := mirror.FromTree(ctx, src.Tree, topts)
	if err != nil {
		src.Close()
		return nil, nil, fmt.Errorf("%s: %w", opts.From, err)
	}
	return t, src, nil
}

// openEndpoint fetches a policy-engine's graphs. It has no list of its
// channels, so they are named (Options.EndpointChannels), and no
// signatures.
func openEndpoint(ctx context.Context, endpoint string, opts Options) (*mirror.Tree, error) {
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
	g, err := mirror.Fetch(ctx, mirror.Options{URL: endpoint, Channels: channels, Arches: arches, Workers: opts.Workers, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	// Without --arch, arches the endpoint has no releases for are dropped
	// rather than published as empty graphs.
	if opts.Arches == nil {
		arches = g.Arches()
	}
	opts.Logger.Info("endpoint mirrored without release signatures: a graph endpoint does not list them", "endpoint", endpoint)
	return &mirror.Tree{Graph: g, Channels: channels, Arches: slices.Clone(arches)}, nil
}
