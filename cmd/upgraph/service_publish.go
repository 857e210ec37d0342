package main

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// servicePublisher publishes each new generation of service --publish.
type servicePublisher struct {
	client         *s3.Client
	bucket, prefix string
	threshold      float64
	force          bool
	workers        int
	log            *slog.Logger
}

func newServicePublisher(c *cli.Context, cfg *serviceConfig, log *slog.Logger) (*servicePublisher, error) {
	bucket, prefix, err := s3tree.ParseURL(cfg.publishTo)
	if err != nil {
		return nil, err
	}
	client, err := s3tree.NewClient(c.Context, s3ClientOptions(c))
	if err != nil {
		return nil, err
	}
	return &servicePublisher{client: client, bucket: bucket, prefix: prefix, threshold: cfg.threshold, force: cfg.force, log: log}, nil
}

// publish uploads what changed of the tree in dir, index.json last, as
// upgraph publish does (without --delete: objects a generation no longer
// lists stay, unreferenced, so that nothing a client or CDN fetched
// moments ago disappears).
func (p *servicePublisher) publish(ctx context.Context, dir string, m *serviceMetrics) error {
	rep, err := publish.Publish(ctx, publish.Options{
		Dir: dir, Client: p.client, Bucket: p.bucket, Prefix: p.prefix,
		ShrinkThreshold: p.threshold, Force: p.force, Logger: p.log,
	})
	m.published(rep, err)
	if err == nil {
		p.log.Info("published", "bucket", p.bucket, "prefix", p.prefix, "uploaded", rep.Uploaded, "bytes", rep.UploadedBytes,
			"unchanged", rep.Plan.Unchanged, "duration", rep.Duration)
	}
	return err
}
