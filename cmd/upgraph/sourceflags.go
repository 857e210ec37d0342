package main

import (
	"log/slog"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/scrape"
	"github.com/upgraph/upgraph/release/source"
)

// scrapeFlags configure registry: and oci: release sources.
func scrapeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cache", Usage: "cache directory, keyed by manifest digest: release scrapes, and catalog images under DIR/catalogs (with each catalog file's decoded blobs, by its bytes' digest) (default: the user cache dir)"},
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
	return generator.ReleaseSourceOptions(opts, c.String("releases"),
		generator.Cache{Dir: c.String("cache"), DirSet: c.IsSet("cache"), Disabled: c.Bool("no-cache")}, os.Stderr)
}
