package main

import (
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// treeFlags are the flags of every command that reads a tree: how to
// reach an s3:// tree (publish's client flags) and an oci:// one.
func treeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "endpoint", Usage: "s3:// trees: URL of an S3-compatible store (default: AWS S3)"},
		&cli.BoolFlag{Name: "path-style", Usage: "s3:// trees: address buckets as ENDPOINT/BUCKET/KEY (most S3-compatible stores need it)"},
		&cli.StringFlag{Name: "region", Usage: "s3:// trees: region (default: from the AWS configuration, else " + s3tree.DefaultRegion + ")"},
		&cli.StringFlag{Name: "ca-file", Usage: "oci:// trees: PEM bundle of extra trusted registry CAs"},
		&cli.BoolFlag{Name: "plain-http", Usage: "oci:// trees: talk plain HTTP to the registry (loopback registries already are)"},
	}
}

// locationHelp says, in every command's description, where a tree may
// live (tree.ParseLocation) and how a graph endpoint is told from one.
const locationHelp = `a tree wherever it lives -- a directory, a bundle (.tar.gz), an http(s)://
host publishing one, s3://BUCKET/PREFIX (--endpoint, --path-style, --region),
oci://REGISTRY/REPO:TAG or @sha256:DIGEST (--ca-file, --plain-http), or an
OCI layout (oci-layout:DIR[:TAG]) -- or a Cincinnati graph endpoint: an
http(s) URL ending in /graph, or a host without index.json (upgraph serve, a
policy-engine), read at HOST/api/upgrades_info/v1/graph (a bare host) or
URL/graph`

// checkTreeFlags checks treeFlags.
func checkTreeFlags(c *cli.Context) error {
	return cliflag.FirstError(checkS3ClientFlags(c), checkCAFile(c))
}

func s3ClientOptions(c *cli.Context) s3tree.ClientOptions {
	return s3tree.ClientOptions{Endpoint: c.String("endpoint"), Region: c.String("region"), PathStyle: c.Bool("path-style")}
}

// treeOptions are treeFlags' values, for tree.Open.
func treeOptions(c *cli.Context, log *slog.Logger) tree.Options {
	return tree.Options{
		S3:       s3ClientOptions(c),
		Registry: registry.Options{CAFile: c.String("ca-file"), PlainHTTP: c.Bool("plain-http"), Logger: log},
		Logger:   log,
	}
}

// openGraphSource opens a tree, or a graph endpoint, to read graphs from
// (diff, path, dot).
func openGraphSource(c *cli.Context, spec string, log *slog.Logger) (*mirror.Source, error) {
	return mirror.OpenSource(c.Context, spec, mirror.SourceOptions{Tree: treeOptions(c, log), Logger: log})
}

// openCatalogTree opens --source when a catalog of the tree is read
// (need), checked first (a graph endpoint only with endpoints, for a
// release path as well); nil otherwise. closeSrc closes what was opened.
func openCatalogTree(c *cli.Context, need, endpoints bool, log *slog.Logger) (src *mirror.Source, closeSrc func(), err error) {
	if !need {
		return nil, func() {}, nil
	}
	if err := cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), endpoints), checkTreeFlags(c)); err != nil {
		return nil, nil, err
	}
	if src, err = openGraphSource(c, c.String("source"), log); err != nil {
		return nil, nil, fmt.Errorf("--source: %w", err)
	}
	return src, func() { src.Close() }, nil
}
