package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/edge"
	"github.com/upgraph/upgraph/tree/manifest"
)

func edgeCommand() *cli.Command {
	return &cli.Command{
		Name:        "edge",
		Usage:       "print configurations that serve a tree without Go: nginx, CloudFront",
		Description: help("edge"),
		Subcommands: []*cli.Command{
			{
				Name:        "nginx",
				Usage:       "print an nginx configuration serving the tree at --root",
				Description: help("edge-nginx"),
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "root", Required: true, Usage: "tree written by upgraph generate (made absolute)"},
					&cli.StringFlag{Name: "listen", Value: "8080", Usage: "argument of nginx's listen directive"},
					&cli.StringSliceFlag{Name: "prefix", Usage: `path prefixes of the graph and signature routes (default "" and /api/upgrades_info)`},
					&cli.StringFlag{Name: "cache-control", Usage: "Cache-Control of graphs and tree files (default: as upgraph serve)"},
					// Always on now (generate writes the copies); accepted
					// so that existing scripts keep working.
					&cli.BoolFlag{Name: "gzip-static", Hidden: true, Usage: "no effect: FILE.gz is always served when present"},
					&cli.BoolFlag{Name: "full", Usage: "print a whole nginx.conf instead of an http-block snippet"},
					&cli.StringFlag{Name: "state-dir", Usage: "with --full: directory for pid, logs and temp files (default: nginx's -p prefix)"},
					&cli.BoolFlag{Name: "foreground", Usage: `with --full: add "daemon off;"`},
					&cli.StringFlag{Name: "user", Usage: "with --full: worker user (nginx honours it when started as root)"},
				},
				Action: runEdgeNginx,
			},
			{
				Name:        "cloudfront",
				Usage:       "print the CloudFront Function (viewer request, cloudfront-js-2.0)",
				Description: help("edge-cloudfront"),
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "catalogs", Usage: "print the function for catalogd's API (/catalogs/*) instead (needs --root)"},
					&cli.StringFlag{Name: "root", Usage: "tree written by upgraph generate: with --catalogs, the one whose catalogs the function serves; without, one with phased rollouts (docs/rollouts.md), whose per-bucket copies the graph function serves"},
					kvsFlag(),
				},
				Action: runEdgeCloudFront,
			},
		},
	}
}

func runEdgeCloudFront(c *cli.Context) error {
	if err := checkKVSFlag(c); err != nil {
		return err
	}
	if !c.Bool("catalogs") {
		if c.IsSet("root") {
			return edgeCloudFrontRollouts(c)
		}
		_, err := fmt.Fprint(c.App.Writer, edge.CloudFrontFunction())
		return err
	}
	if c.String("root") == "" {
		return fmt.Errorf("--catalogs needs --root, the tree whose catalogs the function serves")
	}
	m, err := manifest.Read(c.String("root"))
	if err != nil {
		return fmt.Errorf("--root: %w", err)
	}
	names := site.CatalogNames(m)
	if len(names) == 0 {
		return fmt.Errorf("--root %s: the tree has no operator catalog", c.String("root"))
	}
	fn, err := edge.CloudFrontCatalogFunction(names)
	if err != nil {
		return fmt.Errorf("--root %s: %w", c.String("root"), err)
	}
	_, err = fmt.Fprint(c.App.Writer, fn)
	return err
}

func runEdgeNginx(c *cli.Context) error {
	// "" would be made the working directory.
	if c.String("root") == "" {
		return fmt.Errorf("--root: empty path")
	}
	root, err := filepath.Abs(c.String("root"))
	if err != nil {
		return err
	}
	opts := edge.NginxOptions{
		Root:         root,
		Listen:       c.String("listen"),
		CacheControl: c.String("cache-control"),
		Full:         c.Bool("full"),
		StateDir:     c.String("state-dir"),
		Foreground:   c.Bool("foreground"),
		User:         c.String("user"),
	}
	if c.IsSet("prefix") {
		opts.Prefixes = []string{}
		for _, p := range c.StringSlice("prefix") {
			if p = strings.Trim(p, "/"); p != "" {
				p = "/" + p
			}
			opts.Prefixes = append(opts.Prefixes, p)
		}
	}
	if !opts.Full && (opts.StateDir != "" || opts.Foreground || opts.User != "") {
		return fmt.Errorf("--state-dir, --foreground and --user need --full")
	}
	if err := validateNginxFlags(opts); err != nil {
		return err
	}
	// A tree with phased rollouts gets the bucket maps for its N; one
	// without (or not generated yet) the configuration as before.
	if m, err := manifest.Read(root); err == nil {
		if m.Rollouts != nil {
			opts.RolloutBuckets = m.Rollouts.Buckets
		}
		if err := edge.CheckNginxBound(m); err != nil {
			return fmt.Errorf("--root %s: %w", root, err)
		}
	}
	_, err = fmt.Fprint(c.App.Writer, edge.NginxConfig(opts))
	return err
}

// validateNginxFlags is opts.Validate, flag by flag, so that an error
// names the flag: each value is validated alone in options that are
// otherwise valid.
func validateNginxFlags(opts edge.NginxOptions) error {
	for _, f := range []struct {
		flag string
		set  func(o *edge.NginxOptions)
	}{
		{"root", func(o *edge.NginxOptions) { o.Root = opts.Root }},
		{"listen", func(o *edge.NginxOptions) { o.Listen = opts.Listen }},
		{"prefix", func(o *edge.NginxOptions) { o.Prefixes = opts.Prefixes }},
		{"cache-control", func(o *edge.NginxOptions) { o.CacheControl = opts.CacheControl }},
		{"state-dir", func(o *edge.NginxOptions) { o.StateDir = opts.StateDir }},
		{"user", func(o *edge.NginxOptions) { o.User = opts.User }},
	} {
		alone := edge.NginxOptions{Root: "/", Listen: "8080", Full: opts.Full}
		f.set(&alone)
		if err := alone.Validate(); err != nil {
			return fmt.Errorf("--%s: %w", f.flag, err)
		}
	}
	return opts.Validate() // anything the flags only break together
}
