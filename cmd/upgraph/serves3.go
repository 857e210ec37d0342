package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// s3ClientFlags are publish's client flags, for the commands that read
// s3:// sources.
func s3ClientFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "endpoint", Usage: "s3:// sources: URL of an S3-compatible store (default: AWS S3)"},
		&cli.BoolFlag{Name: "path-style", Usage: "s3:// sources: address buckets as ENDPOINT/BUCKET/KEY (most S3-compatible stores need it)"},
		&cli.StringFlag{Name: "region", Usage: "s3:// sources: region (default: from the AWS configuration, else " + s3tree.DefaultRegion + ")"},
	}
}

func s3ClientOptions(c *cli.Context) s3tree.ClientOptions {
	return s3tree.ClientOptions{Endpoint: c.String("endpoint"), Region: c.String("region"), PathStyle: c.Bool("path-style")}
}

// s3Context is c.Context carrying the client flags, which the readers of
// s3:// sources (s3tree.OpenURL) build their client with.
func s3Context(c *cli.Context) context.Context {
	return s3tree.WithClientOptions(c.Context, s3ClientOptions(c))
}

// serveS3 serves and follows the tree published at url (serve --s3),
// checking for a new generation every poll; h's guard applies to each.
func serveS3(c *cli.Context, h *site.Handler, url string, poll time.Duration, log *slog.Logger) (stop func(), err error) {
	bucket, prefix, err := s3tree.ParseURL(url)
	if err != nil {
		return nil, err
	}
	client, err := s3tree.NewClient(c.Context, s3ClientOptions(c))
	if err != nil {
		return nil, err
	}
	f, err := publish.Follow(c.Context, h, publish.FollowOptions{
		Client: client, Bucket: bucket, Prefix: prefix, Interval: poll, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	return func() {
		if err := f.Close(); err != nil {
			log.Warn("removing the S3 cache directory", "err", err)
		}
	}, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
