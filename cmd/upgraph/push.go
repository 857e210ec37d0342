package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/tree/ocitree"
)

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:        "push",
		Usage:       "push a tree to an OCI registry as an image, for sites that mirror images (skopeo, oc-mirror)",
		ArgsUsage:   "DIR oci://REGISTRY/REPOSITORY:TAG",
		Description: help("push"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ca-file", Usage: "PEM bundle of extra trusted registry CAs"},
			&cli.BoolFlag{Name: "plain-http", Usage: "talk plain HTTP to the registry (loopback registries already are)"},
		},
		Action: withLog(runPush),
	}
}

func runPush(c *cli.Context, log *slog.Logger) error {
	if err := checkCAFile(c); err != nil {
		return err
	}
	if c.NArg() != 2 {
		return fmt.Errorf("want DIR oci://REGISTRY/REPOSITORY:TAG, got %d arguments (flags go before them)", c.NArg())
	}
	// Push checks the reference before it does anything.
	dir, ref := c.Args().Get(0), c.Args().Get(1)
	start := time.Now()
	p, err := ocitree.Push(c.Context, dir, ref, ocitree.Options{
		Registry: registry.Options{CAFile: c.String("ca-file"), PlainHTTP: c.Bool("plain-http"), Logger: log},
	})
	if err != nil {
		return err
	}
	m := p.Manifest
	log.Info("pushed", "ref", p.Tag.String(), "digest", p.Digest.String(), "layer", p.Layer.String(),
		"files", m.Counts.Files, "duration", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(c.App.Writer, "pushed %s: %s (tree %s, %d files, %d channel × arch graphs)\n",
		p.Tag, p.Ref, p.Annotations[ocitree.AnnotationIndexDigest], m.Counts.Files, m.Counts.Graphs)
	return nil
}
