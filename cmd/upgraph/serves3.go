package main

import (
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/s3tree"
)

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
