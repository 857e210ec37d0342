package scrape_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/scrape"
)

// release builds a single-arch release image whose metadata layer sits on
// a base layer the scraper must never need to download.
func release(t *testing.T, version string, base v1.Layer) (v1.Image, v1.Layer) {
	md := rt.MetadataLayer(t, rt.Doc(version, nil, nil), rt.FillerSize(8<<10))
	return rt.Image(t, "amd64", false, base, md), md
}

func newRemote(t *testing.T, host, repo string, opts registry.Options) *scrape.Remote {
	t.Helper()
	c, err := registry.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := scrape.NewRemote(c, host+"/"+repo)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func versions(res *scrape.Result) []string {
	var vs []string
	for _, r := range res.Releases {
		vs = append(vs, r.Metadata.Version)
	}
	return vs
}

func TestIncrementalScrapeFetchesOnlyNewTags(t *testing.T) {
	reg := rt.Start(t)
	proxy := rt.NewProxy(t, reg.Host)
	base := rt.FillerLayer(t, 7, 64<<10, false)
	for i := range 5 {
		img, _ := release(t, fmt.Sprintf("4.1.%d", i), base)
		rt.Push(t, fmt.Sprintf("%s/inc:4.1.%d", reg.Host, i), img)
	}
	cache := scrape.DirCache{Dir: t.TempDir()}
	scrapeOnce := func() (*scrape.Result, rt.Counts) {
		t.Helper()
		proxy.Reset()
		res, err := scrape.Scrape(context.Background(), newRemote(t, proxy.Host, "inc", registry.Options{}), scrape.Options{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		return res, proxy.Counts()
	}

	res, cold := scrapeOnce()
	if len(res.Releases) != 5 || res.Stats.Inspected != 5 {
		t.Fatalf("cold scrape: %d releases, %d inspected, want 5 and 5", len(res.Releases), res.Stats.Inspected)
	}
	// Per image: its config and the top layer; the base layer is never read.
	if cold.BlobGETs != 10 || cold.ManifestGETs != 5 {
		t.Errorf("cold scrape: %d blob GETs, %d manifest GETs, want 10 and 5", cold.BlobGETs, cold.ManifestGETs)
	}

	res, warm := scrapeOnce()
	if len(res.Releases) != 5 || res.Stats.CacheHits != 5 || res.Stats.Inspected != 0 {
		t.Fatalf("warm scrape: %d releases, %d cache hits, %d inspected, want 5, 5, 0", len(res.Releases), res.Stats.CacheHits, res.Stats.Inspected)
	}
	// BlobBytes is not checked: the proxy may still be relaying the tail of
	// a blob the previous scrape stopped reading at release-metadata.
	if warm.BlobGETs != 0 || warm.ManifestGETs != 0 || warm.ManifestHEADs != 5 {
		t.Errorf("warm scrape: %+v, want only 5 manifest HEADs and no GETs", warm)
	}

	img, md := release(t, "4.2.0", base)
	rt.Push(t, reg.Host+"/inc:4.2.0", img)
	res, inc := scrapeOnce()
	if len(res.Releases) != 6 || res.Stats.Inspected != 1 {
		t.Fatalf("after one new tag: %d releases, %d inspected, want 6 and 1", len(res.Releases), res.Stats.Inspected)
	}
	cfg, _ := img.RawConfigFile()
	size, _ := md.Size()
	if inc.BlobGETs != 2 || inc.ManifestGETs != 1 || inc.BlobBytes > int64(len(cfg))+size {
		t.Errorf("after one new tag: %+v, want exactly the new image's manifest, config and top layer (%d bytes)", inc, int64(len(cfg))+size)
	}

	// A tag moved to another digest is read again.
	moved, _ := release(t, "4.1.9", base)
	rt.Push(t, reg.Host+"/inc:4.1.0", moved)
	res, _ = scrapeOnce()
	if res.Stats.Inspected != 1 || !strings.Contains(strings.Join(versions(res), " "), "4.1.9") {
		t.Errorf("moved tag: inspected %d, versions %v; want the new digest read", res.Stats.Inspected, versions(res))
	}
}

func TestScrapeRetriesFaults(t *testing.T) {
	reg := rt.Start(t)
	base := rt.FillerLayer(t, 7, 4<<10, false)
	img, md := release(t, "4.1.0", base)
	rt.Push(t, reg.Host+"/faults:4.1.0", img)
	img2, _ := release(t, "4.1.1", base)
	rt.Push(t, reg.Host+"/faults:4.1.1", img2)
	layer, _ := md.Digest()
	fast := registry.Options{Backoff: 10 * time.Millisecond, StallTimeout: 300 * time.Millisecond}

	for _, tc := range []struct {
		name   string
		faults []rt.Fault
	}{
		{"503 twice on a manifest", []rt.Fault{{Kind: rt.Status, Code: 503, Path: `/manifests/4\.1\.0$`, Times: 2}}},
		{"503 on the tag list", []rt.Fault{{Kind: rt.Status, Code: 502, Path: `/tags/list`, Times: 1}}},
		{"429 with Retry-After", []rt.Fault{{Kind: rt.TooManyRequests, RetryAfter: 1, Path: `/blobs/`, Times: 1}}},
		{"stalled before headers", []rt.Fault{{Kind: rt.Stall, Method: "GET", Path: `/blobs/` + layer.String(), Times: 1}}},
		{"stalled mid-body", []rt.Fault{{Kind: rt.StallBody, Bytes: 100, Method: "GET", Path: `/blobs/` + layer.String(), Times: 1}}},
		{"truncated blob", []rt.Fault{{Kind: rt.Truncate, Bytes: 100, Method: "GET", Path: `/blobs/` + layer.String(), Times: 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := rt.NewProxy(t, reg.Host)
			for _, f := range tc.faults {
				proxy.Inject(f)
			}
			res, err := scrape.Scrape(context.Background(), newRemote(t, proxy.Host, "faults", fast),
				scrape.Options{Backoff: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if proxy.Faults() == 0 {
				t.Fatal("no fault fired")
			}
			if got := strings.Join(versions(res), " "); len(res.Releases) != 2 || len(res.Skipped) != 0 {
				t.Fatalf("releases %s, skipped %+v; want 4.1.0 and 4.1.1", got, res.Skipped)
			}
		})
	}

	t.Run("persistent failure names the tag", func(t *testing.T) {
		proxy := rt.NewProxy(t, reg.Host)
		proxy.Inject(rt.Fault{Kind: rt.Truncate, Bytes: 100, Method: "GET", Path: `/blobs/` + layer.String()})
		repo := newRemote(t, proxy.Host, "faults", fast)
		_, err := scrape.Scrape(context.Background(), repo, scrape.Options{Backoff: 10 * time.Millisecond})
		var failed *scrape.FailedError
		if !errors.As(err, &failed) || len(failed.Failed) != 1 || failed.Failed[0].Tag != "4.1.0" ||
			!strings.Contains(err.Error(), "4.1.0:") || !strings.Contains(err.Error(), "--skip-broken") {
			t.Fatalf("want a failure naming tag 4.1.0 and --skip-broken, got %v", err)
		}
		res, err := scrape.Scrape(context.Background(), repo, scrape.Options{Backoff: 10 * time.Millisecond, SkipBroken: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Releases) != 1 || len(res.Skipped) != 1 || res.Skipped[0].Tag != "4.1.0" || !res.Skipped[0].Broken {
			t.Fatalf("--skip-broken: releases %v, skipped %+v; want 4.1.1 kept and 4.1.0 reported broken", versions(res), res.Skipped)
		}
	})

	t.Run("a tag deleted after listing is skipped, not broken", func(t *testing.T) {
		proxy := rt.NewProxy(t, reg.Host)
		proxy.Inject(rt.Fault{Kind: rt.Status, Code: 404, Path: `/manifests/4\.1\.1$`})
		res, err := scrape.Scrape(context.Background(), newRemote(t, proxy.Host, "faults", fast), scrape.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Releases) != 1 || len(res.Skipped) != 1 || res.Skipped[0].Broken || !strings.Contains(res.Skipped[0].Reason, "vanished") {
			t.Fatalf("releases %v, skipped %+v; want 4.1.1 skipped as vanished", versions(res), res.Skipped)
		}
	})

	t.Run("tag list failure fails the scrape", func(t *testing.T) {
		proxy := rt.NewProxy(t, reg.Host)
		proxy.Inject(rt.Fault{Kind: rt.Status, Code: 500, Path: `/tags/list`})
		_, err := scrape.Scrape(context.Background(), newRemote(t, proxy.Host, "faults", fast), scrape.Options{SkipBroken: true})
		if err == nil || !strings.Contains(err.Error(), "listing tags") {
			t.Fatalf("want a tag-listing error, got %v", err)
		}
	})
}

// TestMemoryCache: an entry is read from the inner cache once, then from
// memory; a write goes through to the inner cache.
func TestMemoryCache(t *testing.T) {
	inner := &countingCache{Cache: scrape.DirCache{Dir: t.TempDir()}}
	c := &scrape.MemoryCache{Inner: inner}
	h := v1.Hash{Algorithm: "sha256", Hex: strings.Repeat("a", 64)}
	if _, ok := c.Get(h); ok {
		t.Fatal("an empty cache has an entry")
	}
	e := scrape.Entry{Digest: h.String(), Arch: "amd64", Reason: "no release-metadata"}
	if err := c.Put(e); err != nil {
		t.Fatal(err)
	}
	if got, ok := (scrape.DirCache{Dir: inner.Cache.(scrape.DirCache).Dir}).Get(h); !ok || got.Arch != "amd64" {
		t.Fatalf("not written through: %+v %v", got, ok)
	}
	for range 3 {
		if got, ok := c.Get(h); !ok || got.Digest != e.Digest {
			t.Fatalf("Get after Put: %+v %v", got, ok)
		}
	}
	// A second process's memory starts empty: one read from disk, then none.
	c2 := &scrape.MemoryCache{Inner: inner}
	inner.gets = 0
	for range 3 {
		if _, ok := c2.Get(h); !ok {
			t.Fatal("entry on disk not found")
		}
	}
	if inner.gets != 1 {
		t.Errorf("%d reads of the inner cache for three Gets, want 1", inner.gets)
	}
}

type countingCache struct {
	scrape.Cache
	gets int
}

func (c *countingCache) Get(h v1.Hash) (scrape.Entry, bool) {
	c.gets++
	return c.Cache.Get(h)
}
