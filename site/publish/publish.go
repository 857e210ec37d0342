package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// DefaultMaxDeletes is the CLI's cap on deletions per publish.
const DefaultMaxDeletes = 256

// DefaultWorkers is how many requests are in flight by default.
const DefaultWorkers = 16

// Options configure Publish. The zero value of each guard is its strictest
// setting: no deletions allowed, no shrinking allowed.
type Options struct {
	// Tree is the tree to publish (see tree.Open), the caller's to close;
	// if nil, the tree in the directory Dir (written by upgraph generate).
	Tree tree.Tree
	Dir  string
	// Client talks to the store (see s3tree.NewClient); Bucket and Prefix say
	// where the tree goes: tree path p becomes key Prefix/p.
	Client *s3.Client
	Bucket string
	Prefix string
	// Rules set each object's headers (nil: DefaultRules).
	Rules *Rules
	// Delete removes objects under the prefix that the new tree does not
	// have, after index.json is replaced; at most MaxDeletes of them
	// (negative: no limit), otherwise none and Publish fails with
	// ErrTooManyDeletes.
	Delete     bool
	MaxDeletes int
	// ShrinkThreshold is the fraction of the published releases or channels
	// the new tree may drop (DefaultShrinkThreshold is the CLI's); dropping
	// more, or any architecture, fails with ErrShrink unless Force.
	ShrinkThreshold float64
	// Force skips the shrink guard and publishes over an unreadable
	// index.json.
	Force bool
	// Verify checks every object with a HEAD instead of trusting the
	// published index.json, repairing what changed behind its back.
	Verify bool
	// DryRun computes the plan and changes nothing.
	DryRun bool
	// Workers bounds concurrent requests (default DefaultWorkers).
	Workers int
	Logger  *slog.Logger
	// Progress, if set, is called after each object uploaded or deleted.
	Progress func(done, total int)
}

func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return DefaultWorkers
}

// Report is what a publish did.
type Report struct {
	// Plan is what was (or, for a dry run, would have been) done.
	Plan          *Plan
	DryRun        bool
	Uploaded      int
	UploadedBytes int64
	Deleted       int
	Duration      time.Duration
}

// Publish uploads the tree (opts.Tree, or the one in opts.Dir) to the
// bucket, incrementally: the plan compares the tree's index.json with the
// published one (see prepare), uploads in an order that never lets a
// published object refer to a missing one, each checked against
// index.json as it is read, replaces index.json last, and only then
// deletes.
//
// On error the report says what was done; re-running converges.
func Publish(ctx context.Context, opts Options) (*Report, error) {
	start := time.Now()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Client == nil || opts.Bucket == "" {
		return nil, errors.New("publish: a client and a bucket are required")
	}
	rules := opts.Rules
	if rules == nil {
		var err error
		if rules, err = NewRules(nil, true); err != nil {
			return nil, err
		}
	}
	src := opts.Tree
	if src == nil {
		d, err := tree.OpenDir(opts.Dir)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		src = d
	}
	t, err := newSource(src)
	if err != nil {
		return nil, err
	}
	b := &bucket{s3tree.NewBucket(opts.Client, opts.Bucket, opts.Prefix)}

	plan, err := prepare(ctx, &opts, t, b, rules, log)
	if err != nil {
		return nil, err
	}
	if err := plan.addMetadata(ctx, src); err != nil {
		return nil, err
	}
	log.Info("publish plan", "dest", b.URL(""), "uploads", len(plan.Uploads), "bytes", plan.UploadBytes(),
		"deletes", len(plan.Deletes), "unchanged", plan.Unchanged, "verified", plan.Verified, "dryRun", opts.DryRun)
	rep := &Report{Plan: plan, DryRun: opts.DryRun}
	if !opts.DryRun {
		err = plan.execute(ctx, &opts, rep, log)
	}
	rep.Duration = time.Since(start)
	if err == nil {
		err = plan.DeleteErr
	}
	if err != nil {
		return rep, err
	}
	if !opts.DryRun {
		log.Info("published", "dest", b.URL(""), "uploaded", rep.Uploaded, "bytes", rep.UploadedBytes,
			"deleted", rep.Deleted, "duration", rep.Duration.Round(time.Millisecond))
	}
	return rep, nil
}

// execute carries the plan out, phase by phase; each phase finishes before
// the next starts.
func (p *Plan) execute(ctx context.Context, opts *Options, rep *Report, log *slog.Logger) error {
	total := len(p.Uploads) + len(p.Deletes)
	var done atomic.Int64
	tick := func() {
		n := int(done.Add(1))
		if opts.Progress != nil {
			opts.Progress(n, total)
		}
	}
	var uploaded, deleted, bytes atomic.Int64
	defer func() {
		rep.Uploaded, rep.Deleted, rep.UploadedBytes = int(uploaded.Load()), int(deleted.Load()), bytes.Load()
	}()

	// index.json alone is replaced atomically and needs no journal: the
	// common case of a regenerated tree whose graphs did not change.
	journaled := slices.ContainsFunc(p.Uploads, func(a Action) bool {
		return a.Path != manifest.FileName && !manifest.IsMetadata(a.Path)
	})
	if journaled {
		// The flag first, so no run skips the journal about to be
		// written (see JournalPath); already set, it still holds.
		if p.index != nil && !p.flagged {
			if err := flagIndex(ctx, p.bucket, p.index); err != nil {
				return fmt.Errorf("recording the publish in progress: %w", err)
			}
		}
		err := writeJournal(ctx, p.bucket, journal{
			Base: p.base, Target: manifest.Digest(p.tree.index),
			Paths: journalPaths(p.pending, p.Uploads),
		})
		if err != nil {
			return fmt.Errorf("recording the publish in progress: %w", err)
		}
	}
	for _, phase := range []int{phaseLeaves, phaseChannels, phaseIndex, phaseTimestamp} {
		var batch []Action
		for _, a := range p.Uploads {
			if p.tree.phase(a.Path) == phase {
				batch = append(batch, a)
			}
		}
		err := parallel.Run(ctx, opts.workers(), len(batch), func(ctx context.Context, _, i int) error {
			a := batch[i]
			if err := p.upload(ctx, a); err != nil {
				return err
			}
			uploaded.Add(1)
			bytes.Add(a.Size)
			log.Debug("uploaded", "key", p.bucket.URL(a.Path), "reason", a.Reason, "bytes", a.Size)
			tick()
			return nil
		})
		if err != nil {
			return err
		}
	}
	if journaled || p.journalFound {
		// index.json now describes every object, and is not flagged, so
		// the journal is no longer needed. If removing it fails, nothing
		// reads it until a later run flags index.json and overwrites it;
		// one stopped in between has it read, and only checks more than
		// it must, having uploaded nothing.
		if err := p.bucket.remove(ctx, JournalPath); err != nil {
			log.Warn("could not remove the publish journal", "err", err)
		}
	}
	return parallel.Run(ctx, opts.workers(), len(p.Deletes), func(ctx context.Context, _, i int) error {
		a := p.Deletes[i]
		if err := p.bucket.remove(ctx, a.Path); err != nil {
			return err
		}
		deleted.Add(1)
		log.Debug("deleted", "key", p.bucket.URL(a.Path), "reason", a.Reason)
		tick()
		return nil
	})
}

// upload stores one object with its sha256 as metadata; index.json also
// carries the digest of the header rules.
func (p *Plan) upload(ctx context.Context, a Action) error {
	data, err := p.tree.read(ctx, a.Path)
	if err != nil {
		return err
	}
	meta := map[string]string{metaSHA256: manifest.SHA256(data)}
	if a.Path == manifest.FileName {
		meta[metaRules] = p.rules.Digest()
	}
	return p.bucket.put(ctx, a.Path, data, p.rules.Resolve(a.Path), meta)
}
