package generator

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/internal/progress"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/scrape"
	relsource "github.com/upgraph/upgraph/release/source"
)

// Cache is what the cache flags of a command reading registry images
// say: --cache DIR keeps release scrapes in DIR and catalog images in
// DIR/catalogs, --no-cache keeps nothing, neither the user's cache
// directory.
type Cache struct {
	Dir      string // --cache
	DirSet   bool   // --cache given
	Disabled bool   // --no-cache
}

// CatalogSourceOptions are the options of catalog sources: the registry
// options release scrapes use, the platform of multi-platform images and
// the cache.
func CatalogSourceOptions(reg registry.Options, platform string, cache Cache, log *slog.Logger) (source.Options, error) {
	reg.Logger = log
	opts := source.Options{Registry: reg, Platform: platform, Logger: log}
	switch {
	case cache.Disabled:
		if cache.DirSet {
			return opts, fmt.Errorf("--cache and --no-cache contradict each other")
		}
	case cache.Dir != "":
		opts.CacheDir = filepath.Join(cache.Dir, "catalogs")
	default:
		dir, err := source.DefaultCacheDir()
		if err != nil {
			return opts, err
		}
		opts.CacheDir = dir
	}
	return opts, nil
}

// ReleaseSourceOptions completes opts (registry, scrape and payload
// options) for the release source releases (generate's --releases): a
// registry: or oci: source, the only ones that scrape, gets the scrape
// cache and progress reported to w.
func ReleaseSourceOptions(opts relsource.Options, releases string, cache Cache, w *os.File) (relsource.Options, error) {
	kind, _, _ := strings.Cut(releases, ":")
	if kind != "registry" && kind != "oci" {
		return opts, nil
	}
	if !cache.Disabled {
		dir := cache.Dir
		if dir == "" {
			var err error
			if dir, err = scrape.DefaultCacheDir(); err != nil {
				return opts, err
			}
		}
		opts.Scrape.Cache = scrape.DirCache{Dir: dir}
	} else if cache.DirSet {
		return opts, fmt.Errorf("--cache and --no-cache contradict each other")
	}
	opts.Scrape.Progress = progress.Reporter(w, opts.Logger, "scrape", "tags")
	return opts, nil
}
