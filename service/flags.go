package service

import (
	"fmt"
	"strings"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// The values of upgraph service's flags are checked and set into a Config
// and Serving here, so that every refusal names the flag as it is typed
// (--name) and the command only parses, calls and serves.

// Inputs are the flags naming the service's inputs, as given ("" when
// not given).
type Inputs struct {
	Releases       string // --releases
	GraphDataImage string // --graph-data-image
	GraphData      string // --graph-data
}

// SetInputs checks in and sets cfg's Releases and GraphData.
func (cfg *Config) SetInputs(in Inputs) error {
	// --releases as UpdateService spells it, HOST/REPO; generate's
	// registry: prefix is accepted too.
	cfg.Releases = strings.TrimPrefix(in.Releases, "registry:")
	if cfg.Releases == "" {
		return fmt.Errorf("--releases is required: the release images' repository, HOST/REPO (UpdateService spec.releases)")
	}
	if err := registry.CheckRepository("releases", cfg.Releases); err != nil {
		return err
	}
	switch image, dir := in.GraphDataImage, in.GraphData; {
	case image != "" && dir != "":
		return fmt.Errorf("--graph-data-image and --graph-data: give one")
	case image != "":
		cfg.GraphData, cfg.GraphDataIsImage = strings.TrimPrefix(image, graphdata.ImagePrefix), true
		return registry.CheckReference("graph-data-image", cfg.GraphData)
	case dir != "":
		cfg.GraphData = dir
		return generator.CheckGraphData(dir, false)
	}
	return fmt.Errorf("--graph-data-image is required (UpdateService spec.graphDataImage), or --graph-data DIR")
}

// Outputs are the flags saying how the service serves and publishes
// ("" and nil when not given).
type Outputs struct {
	Prefixes []string // --prefix, each checked with site.Prefix
	CacheMB  int64    // --cache-mb
	Publish  string   // --publish s3://BUCKET/PREFIX
}

// SetOutputs checks out and sets s's Prefixes and CacheBytes and cfg's
// Publish (its Client is the caller's to make).
func (cfg *Config) SetOutputs(s *Serving, out Outputs) error {
	var err error
	if s.Prefixes, err = site.Prefixes(out.Prefixes); err != nil {
		return err
	}
	if out.CacheMB < 0 || out.CacheMB > 1<<40 {
		return fmt.Errorf("--cache-mb %d: want 0 (no cache) or a positive number of MiB", out.CacheMB)
	}
	s.CacheBytes = out.CacheMB << 20
	if out.Publish != "" {
		bucket, prefix, err := s3tree.ParseURL(out.Publish)
		if err != nil {
			return fmt.Errorf("--publish: %w", err)
		}
		cfg.Publish = &Publisher{URL: out.Publish, Bucket: bucket, Prefix: prefix}
	}
	return nil
}
