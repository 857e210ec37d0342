// Package scrape reads release images the way upstream's graph-builder
// scraper does (spec §2): every tag of a repository, the
// release-manifests/release-metadata file searched from the top layer
// down, the architecture from the image config, manifest lists as "multi".
// Unlike upstream it reads OCI manifests and indexes, streams layers and
// stops at the first match, remembers every manifest digest it has read in
// a persistent cache, retries what can be retried and reports every tag
// that did not yield a release.
package scrape

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/upgraph/upgraph/registry"
)

// Options configure a scrape.
type Options struct {
	// Cache remembers digests across runs (nil: none).
	Cache Cache
	// Workers bounds concurrent tags (0: 16, upstream's default).
	Workers int
	// Attempts per tag, for failures the transport cannot retry itself,
	// such as a blob cut off mid-stream (0: 3).
	Attempts int
	Backoff  time.Duration
	// SkipBroken skips tags that fail after retries instead of failing
	// the scrape. They are still reported.
	SkipBroken bool
	// Progress, when set, is called after every tag.
	Progress func(done, total int)
	Logger   *slog.Logger
}

// Release is a manifest digest that carries release-metadata, with every
// tag pointing to it.
type Release struct {
	Entry
	Tags []string
}

// Skip is a tag that yielded no release, and why.
type Skip struct {
	Tag    string
	Digest string
	Reason string
	// Broken is true for failures (kept only with SkipBroken); false for
	// tags that simply are not releases.
	Broken bool
}

// Result is the outcome of a scrape. Releases are sorted by digest, Skipped
// by tag.
type Result struct {
	Releases []Release
	Skipped  []Skip
	Stats    Stats
}

// Stats count the work done, for the summary line and benchmarks.
type Stats struct {
	Tags, Digests, CacheHits, Inspected int
}

// FailedError lists every tag that failed after retries.
type FailedError struct{ Failed []Skip }

func (e *FailedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d tag(s) failed (use --skip-broken to publish without them):", len(e.Failed))
	for _, s := range e.Failed {
		fmt.Fprintf(&b, "\n  %s: %s", s.Tag, s.Reason)
	}
	return b.String()
}

// Scrape reads every tag of repo.
func Scrape(ctx context.Context, repo Repository, opts Options) (*Result, error) {
	if opts.Workers <= 0 {
		opts.Workers = 16
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.Cache == nil {
		opts.Cache = noCache{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	tags, err := repo.Tags(ctx)
	if err != nil {
		return nil, err
	}
	slices.Sort(tags)
	s := &scraper{repo: repo, opts: opts, digests: map[string]*digestCall{}}
	outcomes := make([]tagOutcome, len(tags))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range min(opts.Workers, len(tags)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(tags) || ctx.Err() != nil {
					return
				}
				outcomes[i] = s.tag(ctx, tags[i])
				if opts.Progress != nil {
					opts.Progress(int(done.Add(1)), len(tags))
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scrape of %s: %w", repo.Name(), err)
	}
	return s.collect(tags, outcomes)
}

type scraper struct {
	repo    Repository
	opts    Options
	mu      sync.Mutex
	digests map[string]*digestCall
	hits    atomic.Int64
	reads   atomic.Int64
}

// digestCall makes two tags on one digest read it once (and never see a
// half-done placeholder, the cause of upstream's bogus 0.0.0 release).
type digestCall struct {
	once  sync.Once
	entry Entry
	err   error
}

type tagOutcome struct {
	digest string
	call   *digestCall
	entry  Entry
	err    error
}

func (s *scraper) tag(ctx context.Context, tag string) tagOutcome {
	// Cosign signature tags are not releases; upstream ignores their failures.
	signature := strings.Contains(tag, ".sig")
	var out tagOutcome
	wait := s.opts.Backoff
	for attempt := 1; ; attempt++ {
		out = s.tagOnce(ctx, tag)
		if out.err == nil || signature || attempt >= s.opts.Attempts || !registry.Retryable(out.err) {
			break
		}
		s.opts.Logger.Warn("retrying tag", "tag", tag, "attempt", attempt, "error", out.err)
		select {
		case <-ctx.Done():
			return tagOutcome{err: ctx.Err()}
		case <-time.After(wait):
		}
		wait *= 2
		s.forget(out.digest, out.call)
	}
	if out.err != nil && signature {
		s.opts.Logger.Debug("ignoring signature tag", "tag", tag, "error", out.err)
		return tagOutcome{digest: out.digest, entry: Entry{Reason: "signature tag: " + out.err.Error()}}
	}
	return out
}

func (s *scraper) tagOnce(ctx context.Context, tag string) tagOutcome {
	desc, err := s.repo.Resolve(ctx, tag)
	if isNotFound(err) {
		// Deleted between listing and now, routine in pruned repositories.
		return tagOutcome{entry: Entry{Reason: "tag vanished after listing"}}
	}
	if err != nil {
		return tagOutcome{err: fmt.Errorf("manifest: %w", err)}
	}
	d := desc.Digest.String()
	s.mu.Lock()
	call := s.digests[d]
	if call == nil {
		call = &digestCall{}
		s.digests[d] = call
	}
	s.mu.Unlock()
	call.once.Do(func() { call.entry, call.err = s.digest(ctx, desc) })
	return tagOutcome{digest: d, call: call, entry: call.entry, err: call.err}
}

// forget drops the failed call for a digest so a retry reads it again;
// a newer call another tag already started is left alone.
func (s *scraper) forget(d string, failed *digestCall) {
	s.mu.Lock()
	if failed != nil && s.digests[d] == failed {
		delete(s.digests, d)
	}
	s.mu.Unlock()
}

func (s *scraper) digest(ctx context.Context, desc v1.Descriptor) (Entry, error) {
	if e, ok := s.opts.Cache.Get(desc.Digest); ok {
		s.hits.Add(1)
		return e, nil
	}
	s.reads.Add(1)
	e, err := s.inspect(ctx, desc)
	if err != nil {
		return e, err
	}
	if !e.Found && e.Arch == "" && strings.HasPrefix(e.Reason, mediaTypeReason) {
		// Judged from a response header, not digest-checked content.
		return e, nil
	}
	if err := s.opts.Cache.Put(e); err != nil {
		s.opts.Logger.Warn("scrape cache not updated", "digest", e.Digest, "error", err)
	}
	return e, nil
}

// inspect determines the arch and searches the layers (spec §2.4–2.6).
func (s *scraper) inspect(ctx context.Context, desc v1.Descriptor) (Entry, error) {
	e := Entry{Digest: desc.Digest.String()}
	var img v1.Image
	switch {
	case desc.MediaType.IsIndex():
		idx, err := s.repo.Index(ctx, desc.Digest)
		if err != nil {
			return e, fmt.Errorf("manifest list %s: %w", e.Digest, err)
		}
		im, err := idx.IndexManifest()
		if err != nil {
			return e, fmt.Errorf("manifest list %s: %w", e.Digest, err)
		}
		child, reason := multiChild(im.Manifests)
		if reason != "" {
			e.Reason = reason
			return e, nil
		}
		e.Arch = "multi"
		// From the index, not the repository: an OCI layout lists only
		// the index itself in index.json.
		if img, err = idx.Image(child.Digest); err != nil {
			return e, fmt.Errorf("manifest %s of manifest list %s: %w", child.Digest, e.Digest, err)
		}
	case desc.MediaType.IsImage():
		var err error
		if img, err = s.repo.Image(ctx, desc.Digest); err != nil {
			return e, fmt.Errorf("manifest %s: %w", e.Digest, err)
		}
		if err := checkConfigSize(img); err != nil {
			return e, fmt.Errorf("config of %s: %w", e.Digest, err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return e, fmt.Errorf("config of %s: %w", e.Digest, err)
		}
		e.Arch = cfg.Architecture
		if !archPattern.MatchString(e.Arch) {
			e.Reason = fmt.Sprintf("image config architecture %q is not one clients can request", e.Arch)
			e.Arch = ""
			return e, nil
		}
	case desc.MediaType.IsSchema1():
		e.Reason = fmt.Sprintf("Docker schema 1 manifest (%s) is not supported; re-push the image as schema 2 or OCI", desc.MediaType)
		return e, nil
	default:
		e.Reason = fmt.Sprintf("%s %q", mediaTypeReason, desc.MediaType)
		return e, nil
	}
	layers, err := img.Layers()
	if err != nil {
		return e, fmt.Errorf("layers of %s: %w", e.Digest, err)
	}
	e.Reason = "no layer has " + MetadataPath
	for i := len(layers) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return e, err
		}
		doc, found, reason, err := findMetadata(layers[i])
		if err != nil {
			digest, _ := layers[i].Digest()
			return e, fmt.Errorf("layer %s of %s: %w", digest, e.Digest, err)
		}
		if found {
			e.Found, e.Metadata, e.Reason = true, doc, ""
			return e, nil
		}
		if !strings.HasPrefix(reason, "no ") {
			e.Reason = reason
		}
	}
	return e, nil
}

// multiChild picks the manifest whose layers hold a multi release's
// metadata: the last one listed, as upstream. Attestation manifests that
// build tools append to indexes are not platforms and are left out, also
// from the count: an image plus its attestation is a single-entry list.
// Upstream treats a single-entry list as a layer (and finds nothing) and
// panics on an empty one; both are reported as not a release here.
func multiChild(ms []v1.Descriptor) (v1.Descriptor, string) {
	var images []v1.Descriptor
	for _, m := range ms {
		if m.Annotations["vnd.docker.reference.type"] == "attestation-manifest" || m.Platform != nil && m.Platform.OS == "unknown" {
			continue
		}
		if m.MediaType != "" && !m.MediaType.IsImage() {
			continue
		}
		images = append(images, m)
	}
	switch {
	case len(ms) == 0:
		return v1.Descriptor{}, "empty manifest list"
	case len(images) == 0:
		return v1.Descriptor{}, "manifest list without an image manifest"
	case len(images) == 1:
		return v1.Descriptor{}, "manifest list with a single platform (unsupported, as upstream)"
	}
	return images[len(images)-1], ""
}

// collect groups tags by digest and applies the failure policy.
func (s *scraper) collect(tags []string, outcomes []tagOutcome) (*Result, error) {
	res := &Result{Stats: Stats{Tags: len(tags), CacheHits: int(s.hits.Load()), Inspected: int(s.reads.Load())}}
	byDigest := map[string]*Release{}
	var failed []Skip
	for i, o := range outcomes {
		switch {
		case o.err != nil:
			failed = append(failed, Skip{Tag: tags[i], Digest: o.digest, Reason: o.err.Error(), Broken: true})
		case !o.entry.Found:
			res.Skipped = append(res.Skipped, Skip{Tag: tags[i], Digest: o.digest, Reason: o.entry.Reason})
		case o.entry.Metadata.Metadata[payloadArchKey] == "multi" && o.entry.Arch != "multi":
			// One per-arch shard of a multi payload (spec §2.4 step 6).
			res.Skipped = append(res.Skipped, Skip{Tag: tags[i], Digest: o.digest, Reason: "per-architecture shard of a multi-arch release"})
		default:
			r := byDigest[o.digest]
			if r == nil {
				r = &Release{Entry: o.entry}
				byDigest[o.digest] = r
			}
			r.Tags = append(r.Tags, tags[i])
		}
	}
	res.Stats.Digests = len(s.digests)
	for _, r := range byDigest {
		res.Releases = append(res.Releases, *r)
	}
	slices.SortFunc(res.Releases, func(a, b Release) int { return strings.Compare(a.Digest, b.Digest) })
	if len(failed) > 0 && !s.opts.SkipBroken {
		return nil, &FailedError{Failed: failed}
	}
	res.Skipped = append(res.Skipped, failed...)
	slices.SortFunc(res.Skipped, func(a, b Skip) int { return strings.Compare(a.Tag, b.Tag) })
	return res, nil
}

const payloadArchKey = "release.openshift.io/architecture"

const mediaTypeReason = "neither an image nor an index: media type"

// archPattern is what clients may send as arch (spec §6.7).
var archPattern = regexp.MustCompile(`^[0-9a-z]+$`)

func isNotFound(err error) bool {
	var te *transport.Error
	return errors.As(err, &te) && te.StatusCode == http.StatusNotFound
}

// maxConfigSize bounds an image's config blob, which go-containerregistry
// reads whole, as long as the manifest says it is: a release image's is a
// few tens of KB.
const maxConfigSize = 16 << 20

// checkConfigSize refuses an image whose manifest gives its config more
// than maxConfigSize bytes, before the blob is read.
func checkConfigSize(img v1.Image) error {
	m, err := img.Manifest()
	if err != nil {
		return err
	}
	if m.Config.Size > maxConfigSize {
		return fmt.Errorf("the manifest gives config %s %d bytes, more than the %d a config may have", m.Config.Digest, m.Config.Size, maxConfigSize)
	}
	return nil
}
