package publish

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// Served is the tree upgraph serve is given: its Location, named by Flag
// ("--dir", "--bundle", "--s3" or "LOCATION") in errors, and Kind
// (site.SourceKind), which says how it is served.
type Served struct {
	Flag, Location string
	Kind           tree.Kind
	// Poll is how often a directory or an s3:// tree is looked at for a
	// new generation.
	Poll time.Duration
	// Tree opens the location (and gives the S3 client's options).
	Tree tree.Options
}

// Start loads the first generation of s into h and keeps following it: a
// directory watched every Poll, an s3:// tree published with upgraph
// publish followed every Poll (h's guard applies to each generation),
// anything else copied once and served from the copy (site.ServeCopy).
// stop releases what that took (call it after h.Close).
func Start(ctx context.Context, h *site.Handler, s Served, log *slog.Logger) (stop func(), err error) {
	switch s.Kind {
	case tree.KindDir:
		if err := h.Watch(ctx, s.Location, s.Poll); err != nil {
			return nil, fmt.Errorf("%s %s: %w", s.Flag, s.Location, err)
		}
		return func() {}, nil
	case tree.KindS3:
		bucket, prefix, err := s3tree.ParseURL(s.Location)
		if err != nil {
			return nil, err
		}
		client, err := s3tree.NewClient(ctx, s.Tree.S3)
		if err != nil {
			return nil, err
		}
		f, err := Follow(ctx, h, FollowOptions{Client: client, Bucket: bucket, Prefix: prefix, Interval: s.Poll, Logger: log})
		if err != nil {
			return nil, err
		}
		return func() {
			if err := f.Close(); err != nil {
				log.Warn("removing the S3 cache directory", "err", err)
			}
		}, nil
	}
	return site.ServeCopy(ctx, h, s.Location, s.Tree, log)
}
