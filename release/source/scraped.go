package source

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/scrape"
)

// Scraped reads release images from a registry repository or an OCI
// layout (spec §2).
type Scraped struct {
	Repo   scrape.Repository
	Kind   string // "registry" or "oci"
	Spec   string // what the user named
	Scrape scrape.Options
	// Timeout bounds the whole scrape (0: none).
	Timeout time.Duration
	// Stats, when set, is read for the summary's request and byte counts.
	Stats  *registry.Stats
	Logger *slog.Logger
	// Result is the last scrape's outcome, for callers that report on it.
	Result *scrape.Result
}

func (s *Scraped) String() string { return s.Kind + ":" + s.Spec }

// Graph scrapes, logs a summary naming every tag that yielded no release,
// and assembles the graph.
func (s *Scraped) Graph(ctx context.Context) (*graph.Graph, error) {
	log := Options{Logger: s.Logger}.logger()
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	start := time.Now()
	opts := s.Scrape
	opts.Logger = log
	res, err := scrape.Scrape(ctx, s.Repo, opts)
	if err != nil {
		return nil, fmt.Errorf("release source %s: %w", s, err)
	}
	s.Result = res
	summary := []any{"source", s.String(), "tags", res.Stats.Tags, "digests", res.Stats.Digests,
		"releases", len(res.Releases), "skipped", len(res.Skipped), "cacheHits", res.Stats.CacheHits,
		"inspected", res.Stats.Inspected, "duration", time.Since(start).Round(time.Millisecond)}
	if s.Stats != nil {
		summary = append(summary, "requests", s.Stats.Requests.Load(), "retries", s.Stats.Retries.Load(), "bytes", s.Stats.BodyBytes.Load())
	}
	log.Info("scraped", summary...)
	for _, sk := range res.Skipped {
		level := slog.LevelInfo
		if sk.Broken {
			level = slog.LevelWarn
		}
		log.Log(ctx, level, "tag skipped", "tag", sk.Tag, "digest", sk.Digest, "broken", sk.Broken, "reason", sk.Reason)
	}
	if len(res.Releases) == 0 {
		return nil, fmt.Errorf("release source %s: no release images among %d tags", s, res.Stats.Tags)
	}
	releases := make([]graph.Release, 0, len(res.Releases))
	versions := versionCache{}
	for _, r := range res.Releases {
		doc := MetadataDocument{
			Kind: r.Metadata.Kind, Version: r.Metadata.Version, Previous: r.Metadata.Previous, Next: r.Metadata.Next,
			Metadata: r.Metadata.Metadata, Payload: s.Repo.Name() + "@" + r.Digest, Arch: r.Arch, ManifestRef: r.Digest,
		}
		origin := "tag " + strings.Join(r.Tags, ", tag ")
		fail := func(field, format string, args ...any) error {
			return fmt.Errorf("%s (%s): %s: %s", origin, r.Digest, field, fmt.Sprintf(format, args...))
		}
		rel, _, err := doc.release(origin, fail, versions, releaseInput{})
		if err != nil {
			return nil, fmt.Errorf("release source %s: %w", s, err)
		}
		releases = append(releases, rel)
	}
	return graph.Assemble(releases)
}
