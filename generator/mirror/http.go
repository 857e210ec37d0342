package mirror

import (
	"context"
	"fmt"
	"time"

	"github.com/upgraph/upgraph/internal/httpget"
)

type fetcher struct {
	get *httpget.Getter
}

// fetch gets and decodes one graph; errors name the channel and arch,
// and the URL through the underlying error.
func (f *fetcher) fetch(ctx context.Context, j job) (*served, error) {
	start := time.Now()
	body, err := f.get.Get(ctx, j.url)
	if err != nil {
		return nil, fmt.Errorf("channel %s, arch %s: %w", j.channel, j.arch, err)
	}
	doc, err := decode(j.url, body)
	if err != nil {
		return nil, fmt.Errorf("channel %s, arch %s: %w", j.channel, j.arch, err)
	}
	f.get.Logger.Debug("fetched", "url", j.url, "releases", len(doc.nodes), "edges", len(doc.edges), "bytes", len(body), "duration", time.Since(start))
	return doc, nil
}
