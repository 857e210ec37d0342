package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/progress"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/scrape"
	"github.com/upgraph/upgraph/release/source"
)

// scrapeFlags configure registry: and oci: release sources.
func scrapeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cache", Usage: "cache directory, keyed by manifest digest: release scrapes, and catalog images under DIR/catalogs (default: the user cache dir)"},
		&cli.BoolFlag{Name: "no-cache", Usage: "read every image again and keep nothing"},
		&cli.BoolFlag{Name: "skip-broken", Usage: "go on without the tags that still fail after retries (each is listed) instead of failing"},
		&cli.StringFlag{Name: "ca-file", Usage: "PEM bundle of extra trusted registry CAs"},
		&cli.BoolFlag{Name: "plain-http", Usage: "talk plain HTTP to the registry (loopback registries already are)"},
		&cli.StringFlag{Name: "payload-repo", Usage: "repository clusters pull scraped releases from (required for oci:)"},
		&cli.DurationFlag{Name: "scrape-timeout", Value: time.Hour, Usage: "overall deadline for a scrape (0: none)"},
	}
}

func sourceOptions(c *cli.Context, log *slog.Logger) (source.Options, error) {
	opts := source.Options{
		Logger:        log,
		Registry:      registry.Options{CAFile: c.String("ca-file"), PlainHTTP: c.Bool("plain-http"), Logger: log},
		Scrape:        scrape.Options{SkipBroken: c.Bool("skip-broken"), Workers: c.Int("workers")},
		ScrapeTimeout: c.Duration("scrape-timeout"),
		PayloadRepo:   c.String("payload-repo"),
	}
	kind, _, _ := strings.Cut(c.String("releases"), ":")
	if kind != "registry" && kind != "oci" {
		return opts, nil
	}
	if !c.Bool("no-cache") {
		dir := c.String("cache")
		if dir == "" {
			var err error
			if dir, err = scrape.DefaultCacheDir(); err != nil {
				return opts, err
			}
		}
		opts.Scrape.Cache = scrape.DirCache{Dir: dir}
	} else if c.IsSet("cache") {
		return opts, fmt.Errorf("--cache and --no-cache contradict each other")
	}
	opts.Scrape.Progress = progress.Reporter(os.Stderr, log, "scrape", "tags")
	return opts, nil
}
