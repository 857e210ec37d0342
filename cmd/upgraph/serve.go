package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/site"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve a generated tree as a Cincinnati graph API",
		Description: `Answers GET /graph?channel=&arch=&version= (and /v1/graph, /openapi, under
each --prefix) from the tree's precomputed files, plus /healthz, /readyz and
/metrics. A new tree swapped into DIR is picked up within --poll; one that
does not load is skipped and the previous one keeps being served.

A bundle (upgraph mirror --bundle) is served with --bundle FILE, or --dir
FILE: it is verified, extracted into a private temporary directory, which
is removed at exit, and served as it is (restart to serve a new one).

A tree published with upgraph publish is served with --s3 s3://BUCKET/PREFIX
(--endpoint, --path-style, --region as publish's): every --poll, the ETag of
PREFIX/index.json is checked; a new generation is downloaded into a private
cache directory (removed at exit) -- unchanged files are reused from the
previous copy, the others checked against their sha256 -- and swapped in
once it loads. Requests are answered from that local copy through the usual
in-memory cache (--cache-mb), never from S3; on any error the previous
generation keeps being served.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "tree written by upgraph generate (or a bundle)"},
			&cli.StringFlag{Name: "bundle", Usage: "bundle written by upgraph mirror --bundle"},
			&cli.StringFlag{Name: "s3", Usage: "s3://BUCKET/PREFIX a tree was published to (upgraph publish): followed every --poll"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8080", Usage: "address to listen on"},
			&cli.StringSliceFlag{Name: "prefix", Usage: `path prefixes (default "" and /api/upgrades_info)`},
			&cli.DurationFlag{Name: "poll", Value: 2 * time.Second, Usage: "how often to look for a new generation"},
			&cli.Int64Flag{Name: "cache-mb", Value: 512, Usage: "file content kept in memory, MiB"},
			&cli.BoolFlag{Name: "access-log", Usage: "log every request"},
			&cli.BoolFlag{Name: "verify-ahead", Value: true, Usage: "check every file's digest in the background when a generation is loaded, rather than on each file's first request"},
			&cli.StringFlag{Name: "pprof", Hidden: true, Usage: "serve net/http/pprof on this address, for profiling"},
		}, s3ClientFlags()...),
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	log, err := logger(c)
	if err != nil {
		return err
	}
	var prefixes []string
	for _, p := range c.StringSlice("prefix") {
		prefixes = append(prefixes, "/"+strings.Trim(p, "/"))
	}
	cacheBytes := c.Int64("cache-mb") << 20
	if os.Getenv("GOMEMLIMIT") == "" {
		// The cache is nearly all of the live heap; without a limit the
		// collector lets the heap reach twice that before it runs, and a
		// full 512 MiB cache (plus its gzip copies) held RSS at 1.3 GB.
		debug.SetMemoryLimit(cacheBytes + cacheBytes/4 + 256<<20)
	}
	h := site.NewHandler(site.Options{Prefixes: prefixes, CacheBytes: cacheBytes, VerifyAhead: c.Bool("verify-ahead"), Logger: log})
	dir, bundleFile, s3URL := c.String("dir"), c.String("bundle"), c.String("s3")
	if n := btoi(dir != "") + btoi(bundleFile != "") + btoi(s3URL != ""); n != 1 {
		return errors.New("serve: want one of --dir, --bundle and --s3")
	}
	if st, err := os.Stat(dir); err == nil && st.Mode().IsRegular() {
		bundleFile = dir
	}
	served := dir
	if s3URL != "" {
		stop, err := serveS3(c, h, s3URL, log)
		if err != nil {
			return err
		}
		defer stop()
		served = s3URL
	} else if bundleFile != "" {
		stop, err := serveBundle(c, h, bundleFile, log)
		if err != nil {
			return err
		}
		defer stop()
		served = bundleFile
	} else if err := h.Watch(c.Context, dir, c.Duration("poll")); err != nil {
		return err
	}
	var handler http.Handler = site.CORS(h)
	if c.Bool("access-log") {
		handler = site.AccessLog(log, handler)
	}
	if addr := c.String("pprof"); addr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		go http.ListenAndServe(addr, mux)
	}
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return err
	}
	const readHeaderTimeout, idleTimeout = 10 * time.Second, 2 * time.Minute
	// The fast path writes graph answers itself, so it has no access log:
	// with one, every request goes through net/http.
	var srv interface {
		Serve(net.Listener) error
		Shutdown(context.Context) error
	} = &site.Server{Handler: h, Fallback: handler, CORS: true, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	if c.Bool("access-log") {
		srv = &http.Server{Handler: handler, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	}
	fmt.Fprintf(c.App.Writer, "serving %s on http://%s\n", served, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-c.Context.Done():
	}
	// Graceful shutdown: finish in-flight requests, at most 10 s.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}
