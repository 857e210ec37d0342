// Package service is the update service as a library: what `upgraph
// service` runs, a drop-in for the OpenShift Update Service in one
// process. Every Interval it resolves each input to a digest (the
// releases repository by scraping it, images with one HEAD request,
// directories by their content), generates the tree again into DIR/tree
// when one changed (generator.Build and Render, with the shrink guard of
// package guard), has a site.Handler serve it, and publishes it when
// asked (site/publish). Metrics counts what /metrics adds to serve's
// series. The CLI parses flags into a Config and calls Start (New, Watch
// and Loop behind a listener); tests drive Refresh and Loop directly, with
// an injected Clock.
package service

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/tree/manifest"
)

// The directories and files of the data directory.
const (
	TreeDir   = "tree"       // the generation served
	CacheDir  = "cache"      // release scrapes, catalog images
	StateFile = "state.json" // the inputs the tree was made from
)

// Config is what the service is made from, checked by its caller.
type Config struct {
	// Releases is the release images' repository, HOST/REPO
	// (UpdateService spec.releases).
	Releases string
	// GraphData is the graph-data image reference when GraphDataIsImage,
	// else a directory or .tar.gz.
	GraphData        string
	GraphDataIsImage bool
	// Catalogs are the operator catalogs published under operators/NAME/;
	// ValidOnly publishes the packages of a catalog that have no error;
	// Platform chooses the image of a multi-platform catalog index.
	Catalogs  []generator.CatalogSpec
	ValidOnly bool
	Platform  string
	// Data is the working directory: the tree served (Data/tree), the
	// caches (Data/cache) and the inputs' digests (Data/state.json).
	Data string
	// Interval is the time between the end of one refresh and the start
	// of the next.
	Interval time.Duration
	// Registry configures registry access (its Logger is Logger).
	Registry    registry.Options
	PayloadRepo string // repository clusters pull releases from, when not Releases
	Workers     int    // concurrency of scraping and rendering; 0 for the defaults
	// RolloutBuckets is the number of phased-rollout buckets of each
	// generation (generate's --rollout-buckets; rollout.CheckBuckets); 0
	// is rollout.DefaultBuckets.
	RolloutBuckets int
	SkipBroken     bool // go on without tags that still fail after retries
	// NoSpare removes the generation a refresh replaces instead of
	// keeping it beside the tree for the next one (writer.DirStore).
	NoSpare       bool
	ScrapeTimeout time.Duration // deadline of one refresh's scrape; 0: none
	// The shrink guard (package guard): the fraction of the served
	// generation that may disappear, Force to replace it anyway,
	// AllowEmpty to write an empty generation.
	ShrinkThreshold   float64
	Force, AllowEmpty bool
	// Sign returns the signer of a generation written to dir at time at
	// (nil: unsigned trees).
	Sign func(dir string, at time.Time) (func([]byte, *manifest.Manifest) (map[string][]byte, error), error)
	// Publish, when not nil, is where every new generation is also
	// published.
	Publish *Publisher
	// Version is the binary's version: a new binary generates again even
	// with the same inputs.
	Version string
	Logger  *slog.Logger
	// Clock is the service's time (nil: the wall clock). Each
	// generation's phased rollouts are computed for Clock's now, not
	// SOURCE_DATE_EPOCH, so that they advance with the service.
	Clock Clock
}

// TreeDir is the directory of the tree served.
func (cfg *Config) TreeDir() string { return filepath.Join(cfg.Data, TreeDir) }

// CacheDir is the directory of the release and catalog image caches.
func (cfg *Config) CacheDir() string { return filepath.Join(cfg.Data, CacheDir) }

// CgroupMemoryMax is the container's memory limit (cgroup v2).
const CgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// MemoryLimit is the service's Go memory limit when GOMEMLIMIT is not
// set: as serve's, the cache and its gzip copies, plus room for a
// generation being built (373 MiB peak at real scale, docs/openshift.md);
// and at most 90 % of the container's limit (read from maxFile), so that
// the collector works harder before the kernel kills the process rather
// than after.
func MemoryLimit(cacheBytes int64, maxFile string) int64 {
	limit := cacheBytes + cacheBytes/4 + 512<<20
	if data, err := os.ReadFile(maxFile); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n > 0 && n/10*9 < limit {
			limit = n / 10 * 9
		}
	}
	return limit
}
