package main

import (
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/sign"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:        "serve",
		Usage:       "serve a generated tree as a Cincinnati graph API",
		ArgsUsage:   "[LOCATION]",
		Description: help("serve"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "tree written by upgraph generate (or a bundle)"},
			&cli.StringFlag{Name: "bundle", Usage: "bundle written by upgraph mirror --bundle"},
			&cli.StringFlag{Name: "s3", Usage: "s3://BUCKET/PREFIX a tree was published to (upgraph publish): followed every --poll"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8080", Usage: "address to listen on, HOST:PORT"},
			&cli.StringSliceFlag{Name: "prefix", Usage: `path prefixes (default "" and /api/upgrades_info)`},
			&cli.DurationFlag{Name: "poll", Value: 2 * time.Second, Usage: "how often to look for a new generation (> 0)"},
			&cli.Int64Flag{Name: "cache-mb", Value: 512, Usage: "file content kept in memory, MiB; 0 keeps none (each gzip answer is then compressed again)"},
			&cli.Float64Flag{Name: "shrink-threshold", Value: manifest.DefaultShrinkThreshold, Usage: "fraction (0 to 1) of the served generation's releases, channels or per-version graphs a new one may drop"},
			&cli.BoolFlag{Name: "force", Usage: "serve every new generation that loads, however much it shrinks"},
			&cli.BoolFlag{Name: "access-log", Usage: "log every request"},
			&cli.BoolFlag{Name: "verify-ahead", Value: true, Usage: "check every file's digest in the background when a generation is loaded, rather than on each file's first request"},
			&cli.StringFlag{Name: "pprof", Hidden: true, Usage: "serve net/http/pprof on this address, for profiling"},
		}, append(treeFlags(), trustFlags()...)...),
		Action: withLog(runServe),
	}
}

// serveConfig is serve's flags, checked.
type serveConfig struct {
	// source is the tree's location, given by flag ("--dir", "--bundle",
	// "--s3" or "LOCATION"); kind says how it is served: a directory
	// watched, an s3:// tree followed, anything else copied once.
	source, flag string
	kind         tree.Kind
	listen       string
	prefixes     []string
	poll         time.Duration
	cacheBytes   int64
	guard        *site.Guard
	trust        *sign.Check // --trust
}

// serveFlags checks every flag before anything is done (flagcheck.go, internal/cliflag, site.SourceKind),
// so a mistake is reported by name rather than as whatever it would
// break later.
func serveFlags(c *cli.Context) (*serveConfig, error) {
	cfg := &serveConfig{listen: c.String("listen"), poll: c.Duration("poll")}
	sources := c.NArg()
	if sources > 0 {
		cfg.flag, cfg.source = "LOCATION", c.Args().First()
	}
	for _, name := range []string{"dir", "bundle", "s3"} {
		v, ok, err := cliflag.Given(c, name)
		if err != nil {
			return nil, err
		}
		if ok {
			sources++
			cfg.flag, cfg.source = "--"+name, v
		}
	}
	switch {
	case c.NArg() > 1:
		return nil, fmt.Errorf("serve: want one LOCATION, got %d arguments (flags go before it)", c.NArg())
	case sources != 1:
		return nil, fmt.Errorf("serve: want exactly one of --dir, --bundle and --s3, or a LOCATION, got %d", sources)
	}
	kind, err := site.SourceKind(cfg.flag, cfg.source)
	cfg.kind = kind
	var prefixErr error
	cfg.prefixes, prefixErr = site.Prefixes(c.StringSlice("prefix"))
	limits := site.ServeLimits{Poll: cfg.poll, CacheMB: c.Int64("cache-mb"), ShrinkThreshold: c.Float64("shrink-threshold")}
	err = cliflag.FirstError(err, cliflag.CheckListen("listen", cfg.listen), prefixErr, limits.Check())
	cfg.cacheBytes = limits.CacheMB << 20
	if !c.Bool("force") {
		cfg.guard = &site.Guard{ShrinkThreshold: limits.ShrinkThreshold}
	}
	if addr := c.String("pprof"); err == nil && addr != "" {
		err = cliflag.CheckListen("pprof", addr)
	}
	if err == nil {
		err = checkTreeFlags(c)
	}
	if err == nil {
		cfg.trust, err = trustCheck(c)
	}
	return cfg, err
}

func runServe(c *cli.Context, log *slog.Logger) error {
	cfg, err := serveFlags(c)
	if err != nil {
		return err
	}
	// Listening comes first: a busy port fails at once, before a tree is
	// loaded or a snapshot taken.
	ln, err := net.Listen("tcp", cfg.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", cfg.listen, err)
	}
	opts := site.Options{Prefixes: cfg.prefixes, CacheBytes: site.ServeCache(cfg.cacheBytes), VerifyAhead: c.Bool("verify-ahead"), Guard: cfg.guard, Logger: log,
		Trust: cfg.trust.Verifier(true)}
	h := site.NewHandler(opts)
	stop, err := publish.Start(c.Context, h, publish.Served{Flag: cfg.flag, Location: cfg.source, Kind: cfg.kind, Poll: cfg.poll, Tree: treeOptions(c, log)}, log)
	if err != nil {
		// Nothing is left behind: the listener closes, and so does every
		// generation loaded, with its snapshot.
		ln.Close()
		h.Close()
		return err
	}
	defer stop()
	return serveUntilDone(c, h, ln, cfg.source, log)
}

// serveUntilDone says what it serves, then serves h on ln until the
// command's context ends (site.Run).
func serveUntilDone(c *cli.Context, h *site.Handler, ln net.Listener, served string, log *slog.Logger) error {
	fmt.Fprintf(c.App.Writer, "serving %s on http://%s\n", served, ln.Addr())
	return site.Run(c.Context, h, ln, site.RunOptions{AccessLog: c.Bool("access-log"), Pprof: c.String("pprof"), Logger: log})
}
