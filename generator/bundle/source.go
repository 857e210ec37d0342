package bundle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/mirror"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// input is what Mirror reads: the selected graph, and the tree it came
// from when there is one (signatures and provenance are read from it).
type input struct {
	tree *mirror.Tree
	// files is the source tree; nil for a graph endpoint.
	files fs.FS
	// generatedAt is the source generation's time; zero for an endpoint.
	generatedAt time.Time
	close       func()
}

// openSource reads opts.From: a tree directory, a bundle, an
// s3://BUCKET/PREFIX a tree was published to (s3tree.OpenURL, with the
// client options of s3tree.WithClientOptions in ctx), an http(s) host
// publishing a tree (its index.json), or, when the host has no
// index.json, a Cincinnati graph endpoint.
func openSource(ctx context.Context, opts Options) (*input, error) {
	from := opts.From
	topts := mirror.TreeOptions{Channels: opts.Channels, Arches: opts.Arches, Workers: opts.Workers, Logger: opts.Logger}
	switch {
	case strings.HasPrefix(from, "s3://"):
		// The client comes from s3tree.WithClientOptions in ctx.
		fsys, err := s3tree.OpenURL(ctx, from)
		if err != nil {
			return nil, err
		}
		src, err := fromTree(ctx, fsys, topts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", from, err)
		}
		return src, nil
	case strings.HasPrefix(from, "http://") || strings.HasPrefix(from, "https://"):
		return openHTTP(ctx, opts, topts)
	}
	st, err := os.Stat(from)
	if err != nil {
		return nil, err
	}
	dir, cleanup := from, func() {}
	if !st.IsDir() {
		u, err := Unpack(ctx, from, "", Limits{})
		if err != nil {
			return nil, err
		}
		dir, cleanup = u.Dir, func() { u.Close() }
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		cleanup()
		return nil, err
	}
	src, err := fromTree(ctx, root.FS(), topts)
	if err != nil {
		root.Close()
		cleanup()
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	src.close = func() { root.Close(); cleanup() }
	return src, nil
}

func fromTree(ctx context.Context, fsys fs.FS, topts mirror.TreeOptions) (*input, error) {
	t, err := mirror.FromTree(ctx, fsys, topts)
	if err != nil {
		return nil, err
	}
	at, err := time.Parse(time.RFC3339, t.Manifest.GeneratedAt)
	if err != nil {
		return nil, fmt.Errorf("%s: generatedAt: %w", manifest.FileName, err)
	}
	return &input{tree: t, files: fsys, generatedAt: at, close: func() {}}, nil
}

func openHTTP(ctx context.Context, opts Options, topts mirror.TreeOptions) (*input, error) {
	from := strings.TrimSuffix(opts.From, "/")
	// A URL that names the graph API is an endpoint; anything else may be
	// a static copy of a tree, which gives per-file digests and the
	// signatures, so it is tried first.
	if !strings.HasSuffix(from, "/graph") {
		fsys, err := mirror.NewHTTPTree(ctx, from, mirror.HTTPTreeOptions{Client: opts.Client, Logger: opts.Logger})
		if err != nil {
			return nil, err
		}
		src, err := fromTree(ctx, fsys, topts)
		if err == nil {
			return src, nil
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != manifest.FileName || !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", from, err)
		}
		opts.Logger.Info("no index.json: reading the host as a graph endpoint", "from", from)
		from += "/api/upgrades_info/v1/graph"
	}
	return openEndpoint(ctx, from, opts)
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
	return &input{tree: &mirror.Tree{Graph: g, Channels: channels, Arches: slices.Clone(arches)}, close: func() {}}, nil
}
