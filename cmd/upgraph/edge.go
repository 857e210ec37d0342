package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/site/edge"
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
	if err := edge.CheckKVS(c.String("kvs"), c.IsSet("kvs"), c.Bool("catalogs"), c.IsSet("root")); err != nil {
		return err
	}
	if !c.Bool("catalogs") {
		if c.IsSet("root") {
			fn, err := edge.WriteCloudFrontRollouts(c.String("root"), c.String("kvs"))
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, fn)
			return err
		}
		_, err := fmt.Fprint(c.App.Writer, edge.CloudFrontFunction())
		return err
	}
	fn, err := edge.CloudFrontCatalogs(c.String("root"))
	if err != nil {
		return err
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
		opts.Prefixes = edge.NginxPrefixes(c.StringSlice("prefix"))
	}
	conf, err := edge.NginxConfigForTree(opts)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.App.Writer, conf)
	return err
}
