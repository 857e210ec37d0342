package scrape_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/scrape"
)

// BenchmarkScrape measures a cold scrape of 1,000 release tags from a real
// local registry (through the counting proxy) and a warm re-scrape with
// the cache of the cold one. Each image is a shared 1 MiB base layer plus
// a 512 KiB release-manifests layer, so a cold scrape downloads what a
// real one does (config and top layer), at loopback speed.
func BenchmarkScrape(b *testing.B) {
	const tags = 1000
	reg := rt.Start(b)
	proxy := rt.NewProxy(b, reg.Host)
	base := rt.FillerLayer(b, 1, 1<<20, false)
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range tags {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			v := fmt.Sprintf("4.%d.%d", i/100, i%100)
			md := rt.MetadataLayer(b, rt.Doc(v, nil, nil), rt.FillerSize(512<<10), rt.Seed(uint64(i)))
			rt.Push(b, fmt.Sprintf("%s/bench:%s", reg.Host, v), rt.Image(b, "amd64", false, base, md))
		})
	}
	wg.Wait()
	b.Logf("pushed %d images in %s", tags, time.Since(start).Round(time.Millisecond))

	run := func(b *testing.B, cache scrape.Cache) {
		proxy.Reset()
		c, err := registry.New(registry.Options{})
		if err != nil {
			b.Fatal(err)
		}
		repo, err := scrape.NewRemote(c, proxy.Host+"/bench")
		if err != nil {
			b.Fatal(err)
		}
		res, err := scrape.Scrape(context.Background(), repo, scrape.Options{Cache: cache})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Releases) != tags {
			b.Fatalf("%d releases, want %d", len(res.Releases), tags)
		}
	}
	// measure runs b.N scrapes, each with the cache cache() returns, and
	// reports the traffic per scrape.
	measure := func(b *testing.B, cache func() scrape.Cache) {
		var total rt.Counts
		for range b.N {
			run(b, cache())
			c := proxy.Counts()
			total.Requests += c.Requests
			total.TagLists += c.TagLists
			total.BlobGETs += c.BlobGETs
			total.Bytes += c.Bytes
		}
		b.ReportMetric(float64(total.Requests)/float64(b.N), "requests/op")
		b.ReportMetric(float64(total.TagLists)/float64(b.N), "taglists/op")
		b.ReportMetric(float64(total.BlobGETs)/float64(b.N), "blobGETs/op")
		b.ReportMetric(float64(total.Bytes)/float64(b.N), "bytes/op")
	}
	b.Run("cold", func(b *testing.B) {
		measure(b, func() scrape.Cache { return scrape.DirCache{Dir: b.TempDir()} })
	})
	warm := scrape.DirCache{Dir: b.TempDir()}
	run(b, warm)
	b.Run("warm", func(b *testing.B) {
		measure(b, func() scrape.Cache { return warm })
	})
}
