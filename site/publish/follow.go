package publish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// FollowOptions configure Follow.
type FollowOptions struct {
	Client         *s3.Client
	Bucket, Prefix string
	// Interval between HEADs of PREFIX/index.json (default 2 s).
	Interval time.Duration
	// RetryAfter is how long a generation that failed to download or load
	// (same ETag) waits before it is tried again (default 1 min).
	RetryAfter time.Duration
	// TempDir holds the private cache directory ("": os.TempDir()).
	TempDir string
	Logger  *slog.Logger
}

// Follower keeps a site.Handler serving the tree published at an S3
// prefix. See Follow.
type Follower struct {
	o     FollowOptions
	h     *site.Handler
	b     *s3tree.Bucket
	cache string // private directory of local copies

	mu       sync.Mutex // serialises checks
	n        int        // numbers local copies
	cur      string     // local copy being served ("" before the first)
	curM     *manifest.Manifest
	etag     string // of the index.json being served
	failed   string // ETag of the last generation that failed
	failedAt time.Time
	refused  string // ETag of the last generation the handler's guard refused

	cancel context.CancelFunc
	done   chan struct{}
}

// Follow serves the tree published at s3://Bucket/Prefix through h, and
// follows its new generations: every Interval it HEADs PREFIX/index.json
// and, when its ETag changes, downloads the new generation into a local
// copy under a private cache directory — files unchanged since the
// previous copy (same sha256) are hard-linked (or copied) from it, the
// others read with s3tree.Bucket and checked against their sha256 in
// index.json — loads it with site.Load and swaps it in with
// h.Offer, as site's directory watcher does: a generation the handler's
// guard refuses (site.Options.Guard: one that would shrink what clusters
// see) is not downloaded, and not tried again until another one is
// published. Any error keeps the previous generation served. The
// "in-memory cache" of an S3-backed server is therefore site's usual
// memory cache (Options.CacheBytes) over that local copy, refreshed by
// ETag; nothing is fetched from S3 per request.
//
// Follow returns once the first generation is served (or with its
// error). Close stops following and removes the cache directory.
func Follow(ctx context.Context, h *site.Handler, o FollowOptions) (*Follower, error) {
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	cache, err := os.MkdirTemp(o.TempDir, "upgraph-serve-s3-")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &Follower{o: o, h: h, b: s3tree.NewBucket(o.Client, o.Bucket, o.Prefix), cache: cache, cancel: cancel, done: make(chan struct{})}
	if err := f.Check(ctx); err != nil {
		cancel()
		os.RemoveAll(cache)
		return nil, err
	}
	go func() {
		defer close(f.done)
		t := time.NewTicker(o.Interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_ = f.Check(ctx)
			}
		}
	}()
	return f, nil
}

// Close stops following and removes the cache directory. The generation
// being served keeps working where the platform gives site.Load a
// snapshot; Close is meant for exit.
func (f *Follower) Close() error {
	f.cancel()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return os.RemoveAll(f.cache)
}

// ETag returns the ETag of the index.json being served.
func (f *Follower) ETag() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.etag
}

func (f *Follower) url() string { return "s3://" + f.b.Name + "/" + f.b.Prefix }

// Check looks for a new generation now and serves it if it loads; the
// poll loop calls it every Interval. It returns the download or load
// error of a new generation, nil when there is none.
func (f *Follower) Check(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := f.b.Key(manifest.FileName)
	head, err := f.b.Client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &f.b.Name, Key: &key})
	if err != nil {
		err = s3tree.ObjectError(f.b.Name, key, err)
		f.o.Logger.Warn("checking for a new generation; still serving the previous one", "url", f.url(), "err", err)
		return err
	}
	etag := aws.ToString(head.ETag)
	if etag == f.etag || etag == f.refused || (etag == f.failed && time.Since(f.failedAt) < f.o.RetryAfter) {
		return nil
	}
	if err := f.update(ctx); errors.Is(err, manifest.ErrShrink) || errors.Is(err, manifest.ErrEmpty) {
		// Refused, and logged, by the guard: not tried again until
		// another generation is published (or the server restarts).
		f.refused = etag
		return err
	} else if err != nil {
		// The ETag HEAD saw is the one remembered: an index.json replaced
		// since is a new generation, tried at the next check.
		f.failed, f.failedAt = etag, time.Now()
		f.o.Logger.Error("new generation not loaded; still serving the previous one", "url", f.url(), "etag", etag, "err", err)
		return err
	}
	return nil
}

// update downloads, loads and serves the generation now published.
func (f *Follower) update(ctx context.Context) error {
	key := f.b.Key(manifest.FileName)
	// GET, not the HEAD's ETag: index.json may have been replaced in
	// between, and the copy must be labelled with the ETag of its bytes.
	out, err := f.b.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: &f.b.Name, Key: &key})
	if err != nil {
		return s3tree.ObjectError(f.b.Name, key, err)
	}
	index, err := f.b.ReadBody(out, key)
	out.Body.Close()
	if err != nil {
		return err
	}
	etag := aws.ToString(out.ETag)
	m, err := manifest.Parse(index)
	if err != nil {
		return fmt.Errorf("%s: %w", manifest.FileName, err)
	}
	// A generation the guard refuses is not even downloaded.
	if err := f.h.Admit(m, manifest.Digest(index)); err != nil {
		return err
	}
	f.n++
	dir := filepath.Join(f.cache, fmt.Sprintf("gen-%d", f.n))
	err = f.download(ctx, dir, m, index)
	var g *site.Generation
	if err == nil {
		g, err = site.Load(dir, f.o.Logger)
	}
	if err == nil {
		err = f.h.Offer(g)
	}
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	if old := f.cur; old != "" {
		// The previous generation closes once its last request is
		// answered, at the latest a minute after the swap (site's drain
		// grace); its copy goes once no request can still be reading it.
		time.AfterFunc(2*time.Minute, func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			os.RemoveAll(old)
		})
	}
	f.cur, f.curM, f.etag, f.failed = dir, m, etag, ""
	f.o.Logger.Info("serving generation", "url", f.url(), "etag", etag, "id", g.ID, "graphs", len(m.Graphs), "generatedAt", m.GeneratedAt)
	return nil
}

// download writes the tree index describes into dir: from the previous
// copy where a file's sha256 is unchanged, from the bucket otherwise.
func (f *Follower) download(ctx context.Context, dir string, m *manifest.Manifest, index []byte) error {
	// Any file of the previous copy with a given digest will do.
	have := map[string]string{}
	for p, file := range filesOf(f.curM) {
		have[file.SHA256] = p
	}
	for name, file := range m.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !fs.ValidPath(name) || name == manifest.FileName {
			return fmt.Errorf("%s: invalid path %q", manifest.FileName, name)
		}
		local, err := filepath.Localize(name)
		if err != nil {
			return fmt.Errorf("%s: invalid path %q: %w", manifest.FileName, name, err)
		}
		dst := filepath.Join(dir, local)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if p, ok := have[file.SHA256]; ok {
			prev, _ := filepath.Localize(p)
			if err := linkOrCopy(filepath.Join(f.cur, prev), dst); err == nil {
				continue
			}
			// The previous copy is damaged or gone: fetch the file instead.
		}
		data, err := f.b.ReadFile(ctx, name)
		if err != nil {
			return err
		}
		if int64(len(data)) != file.Size || manifest.SHA256(data) != file.SHA256 {
			return fmt.Errorf("%s does not match its size and sha256 in %s", name, manifest.FileName)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	// A signed tree's TUF metadata, for serve --trust (site.Options.Trust)
	// to verify the copy; fetched after the files, so that a publish
	// finishing meanwhile gives metadata newer than index.json, which the
	// verification refuses, never the reverse.
	meta, err := tree.FollowMetadata(ctx, f.b.URL(""), func(ctx context.Context, name string) ([]byte, error) {
		return f.b.ReadFile(ctx, manifest.MetadataDir+"/"+name)
	})
	if err != nil {
		return err
	}
	for name, data := range meta {
		if err := os.MkdirAll(filepath.Join(dir, manifest.MetadataDir), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, manifest.FileName), index, 0o644)
}

// linkOrCopy makes dst a hard link to src, or a copy where links fail.
// Copies are never modified in place, so sharing an inode is safe.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(err, os.Remove(dst))
	}
	return nil
}
