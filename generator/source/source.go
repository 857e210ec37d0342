// Package source reads releases. Every kind of input (a graph-builder JSON
// dump, a folder of release-metadata documents, and later registries and
// OCI layouts) yields the same thing: the unfiltered graph a graph-builder's
// scraper would have built (spec §2.11).
package source

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/upgraph/upgraph/generator/graph"
)

// Source yields the graph of all releases, before graph-data is applied.
type Source interface {
	Graph(ctx context.Context) (*graph.Graph, error)
	// String names the source for logs, e.g. "metadata:releases/".
	String() string
}

// Options configure sources.
type Options struct {
	Logger *slog.Logger
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Kinds lists the accepted source prefixes, for help texts.
const Kinds = "graph:FILE (graph-builder JSON), metadata:DIR (release-metadata documents)"

// Parse returns the source named by spec, "KIND:ARG".
func Parse(spec string, opts Options) (Source, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return nil, fmt.Errorf("release source %q: want KIND:ARG, one of %s", spec, Kinds)
	}
	switch kind {
	case "graph":
		return &GraphFile{Path: arg}, nil
	case "metadata":
		return &MetadataDir{Dir: arg, Logger: opts.logger()}, nil
	default:
		return nil, fmt.Errorf("release source %q: unknown kind %q, want one of %s", spec, kind, Kinds)
	}
}

// GraphFile reads a graph-builder JSON graph (spec §7.1), as served at a
// graph-builder's /graph or stored in the conformance fixtures.
type GraphFile struct{ Path string }

func (s *GraphFile) String() string { return "graph:" + s.Path }

// Graph decodes the file.
func (s *GraphFile) Graph(ctx context.Context) (*graph.Graph, error) {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, fmt.Errorf("release source: %w", err)
	}
	return graph.Decode(s.Path, data)
}
