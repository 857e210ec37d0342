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
	"time"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/scrape"
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
	// Registry configures registry access (registry: sources).
	Registry registry.Options
	// Scrape configures registry: and oci: sources.
	Scrape scrape.Options
	// ScrapeTimeout bounds a whole registry scrape (0: none).
	ScrapeTimeout time.Duration
	// PayloadRepo is the repository clusters pull scraped releases from:
	// required for oci:, and overrides the scraped registry's name.
	PayloadRepo string
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Kinds lists the accepted source prefixes, for help texts.
const Kinds = "graph:FILE (graph-builder JSON), metadata:DIR (release-metadata documents), registry:HOST/REPO (scrape a registry), oci:DIR (scrape an OCI image layout)"

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
	case "registry":
		regOpts := withLogger(opts.Registry, opts.logger())
		if regOpts.Jobs == 0 {
			regOpts.Jobs = max(opts.Scrape.Workers, 16)
		}
		client, err := registry.New(regOpts)
		if err != nil {
			return nil, err
		}
		repo, err := scrape.NewRemote(client, arg)
		if err != nil {
			return nil, fmt.Errorf("release source %q: %w", spec, err)
		}
		repo.Payload = opts.PayloadRepo
		return &Scraped{Repo: repo, Kind: kind, Spec: arg, Scrape: opts.Scrape, Timeout: opts.ScrapeTimeout, Stats: client.Stats, Logger: opts.logger()}, nil
	case "oci":
		if opts.PayloadRepo == "" {
			return nil, fmt.Errorf("release source %q: an OCI layout does not say where clusters pull from; set --payload-repo HOST/REPO", spec)
		}
		repo, err := scrape.OpenLayout(arg, opts.PayloadRepo)
		if err != nil {
			return nil, fmt.Errorf("release source: %w", err)
		}
		return &Scraped{Repo: repo, Kind: kind, Spec: arg, Scrape: opts.Scrape, Timeout: opts.ScrapeTimeout, Logger: opts.logger()}, nil
	default:
		return nil, fmt.Errorf("release source %q: unknown kind %q, want one of %s", spec, kind, Kinds)
	}
}

func withLogger(o registry.Options, log *slog.Logger) registry.Options {
	if o.Logger == nil {
		o.Logger = log
	}
	return o
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
