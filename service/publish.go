package service

import (
	"context"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/site/publish"
)

// Publisher is where each new generation is also published, incrementally
// (upgraph publish without --delete).
type Publisher struct {
	URL            string // s3://BUCKET/PREFIX, as messages name it
	Client         *s3.Client
	Bucket, Prefix string
}

// publish uploads what changed of the tree in dir, index.json last, as
// upgraph publish does (without --delete: objects a generation no longer
// lists stay, unreferenced, so that nothing a client or CDN fetched
// moments ago disappears).
func (p *Publisher) publish(ctx context.Context, dir string, threshold float64, force bool, m *Metrics, log *slog.Logger) error {
	rep, err := publish.Publish(ctx, publish.Options{
		Dir: dir, Client: p.Client, Bucket: p.Bucket, Prefix: p.Prefix,
		ShrinkThreshold: threshold, Force: force, Logger: log,
	})
	m.published(rep, err)
	if err == nil {
		log.Info("published", "bucket", p.Bucket, "prefix", p.Prefix, "uploaded", rep.Uploaded, "bytes", rep.UploadedBytes,
			"unchanged", rep.Plan.Unchanged, "duration", rep.Duration)
	}
	return err
}
