package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator/registry"
	"github.com/upgraph/upgraph/generator/scrape"
	"github.com/upgraph/upgraph/generator/source"
)

// scrapeFlags configure registry: and oci: release sources.
func scrapeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cache", Usage: "scrape cache directory, keyed by manifest digest (default: the user cache dir)"},
		&cli.BoolFlag{Name: "no-cache", Usage: "read every image again and keep nothing"},
		&cli.BoolFlag{Name: "skip-broken", Usage: "publish without tags that fail after retries (they are listed) instead of failing"},
		&cli.StringFlag{Name: "ca-file", Usage: "PEM bundle of extra trusted registry CAs"},
		&cli.BoolFlag{Name: "plain-http", Usage: "talk plain HTTP to the registry (loopback registries already are)"},
		&cli.StringFlag{Name: "payload-repo", Usage: "repository clusters pull scraped releases from (required for oci:)"},
		&cli.DurationFlag{Name: "scrape-timeout", Value: time.Hour, Usage: "overall deadline for a scrape"},
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
	opts.Scrape.Progress = progressReporter(os.Stderr, log)
	return opts, nil
}

// progressReporter draws a bar when stderr is a terminal and logs a line
// every few seconds otherwise (CI logs must not fill with carriage returns).
func progressReporter(w *os.File, log *slog.Logger) func(done, total int) {
	var mu sync.Mutex
	var last time.Time
	if st, err := w.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if done < total && time.Since(last) < 100*time.Millisecond {
				return
			}
			last = time.Now()
			drawBar(w, done, total)
		}
	}
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done < total && time.Since(last) < 5*time.Second {
			return
		}
		last = time.Now()
		log.Info("scrape progress", "tags", done, "of", total)
	}
}

func drawBar(w io.Writer, done, total int) {
	const width = 30
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	end := ""
	if done == total {
		end = "\n"
	}
	fmt.Fprintf(w, "\r[%s%s] %d/%d tags%s", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total, end)
}
