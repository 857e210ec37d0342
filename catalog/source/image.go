package source

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/registry"
)

// The labels operator-registry reads on images
// (pkg/containertools/dockerfilegenerator.go, pkg/lib/bundle).
const (
	// ConfigsLabel names the directory of a file-based catalog image.
	ConfigsLabel = "operators.operatorframework.io.index.configs.v1"
	// DatabaseLabel names the database of a sqlite-based index image.
	DatabaseLabel = "operators.operatorframework.io.index.database.v1"
	// BundlePackageLabel marks an operator bundle image.
	BundlePackageLabel = "operators.operatorframework.io.bundle.package.v1"
)

// Image is a catalog image in a registry, by tag or digest. Its catalog is
// the directory named by the image's ConfigsLabel, as the image's layers
// stack up (whiteouts and opaque directories applied); nothing else of
// the image is extracted or kept. An index (manifest list) is resolved to
// the image for Platform. With a CacheDir, a catalog is kept by the
// manifest digest of its image: loading the same digest again fetches the
// manifest (and the index) only; the blobs of its files are kept there too
// by the digest of each file's bytes (declcfg.FileCache), so that the next
// image of the catalog decodes only the files that changed. Both are
// bounded: a load prunes at most hourly what no run used for a week, then
// the least recently used beyond a byte budget (cache_prune.go).
type Image struct {
	Ref      string
	Client   *registry.Client
	Platform v1.Platform
	CacheDir string
	Logger   *slog.Logger
}

func (s *Image) String() string { return "image:" + s.Ref }

// ParsePlatform parses os/arch or os/arch/variant ("" is
// DefaultPlatform).
func ParsePlatform(s string) (v1.Platform, error) {
	if s == "" {
		s = DefaultPlatform
	}
	p, err := v1.ParsePlatform(s)
	if err != nil || p.OS == "" || p.Architecture == "" || p.OSVersion != "" {
		return v1.Platform{}, fmt.Errorf("platform %q: want OS/ARCH or OS/ARCH/VARIANT, e.g. %s or linux/arm64/v8", s, DefaultPlatform)
	}
	return *p, nil
}

func (s *Image) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// Load resolves the reference, then reads the catalog from the cache or
// from the image's layers.
func (s *Image) Load(ctx context.Context) (*declcfg.DeclarativeConfig, Info, error) {
	info := Info{Kind: KindImage, Reference: s.Ref}
	fail := func(err error) (*declcfg.DeclarativeConfig, Info, error) {
		return nil, info, fmt.Errorf("catalog image %s: %w", s.Ref, err)
	}
	if s.Client == nil {
		return fail(fmt.Errorf("no registry client"))
	}
	platform := s.Platform
	if platform.OS == "" {
		platform, _ = ParsePlatform("")
	}
	ref, err := s.Client.Reference(s.Ref)
	if err != nil {
		return fail(err)
	}
	desc, err := s.Client.Puller.Get(ctx, ref)
	if err != nil {
		return fail(err)
	}
	info.Resolved = ref.Context().Digest(desc.Digest.String()).String()
	img, err := choose(desc, platform, &info)
	if err != nil {
		return fail(err)
	}
	digest, err := v1.NewHash(info.Digest)
	if err != nil {
		return fail(err)
	}

	read := func(dir string) (*declcfg.DeclarativeConfig, error) {
		s.logger().Debug("catalog image read", "reference", s.Ref, "digest", info.Digest, "platform", info.Platform, "cached", info.Cached)
		cfg, err := declcfg.LoadWith(ctx, os.DirFS(dir), ".", declcfg.Options{Cache: decodedCache(s.CacheDir)})
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", info.ConfigsDir, info.Digest, err)
		}
		return cfg, nil
	}
	var cfg *declcfg.DeclarativeConfig
	if s.CacheDir != "" {
		c := cache{Dir: s.CacheDir, Logger: s.logger()}
		// Once the catalog is read (or failed), at most hourly: this
		// load's entry is kept whatever the budget.
		defer func() { c.maybePrune(time.Now(), digest.Hex) }()
		cfg, err = s.readCached(ctx, c, img, digest, &info, read)
	} else {
		var tmp string
		if tmp, err = os.MkdirTemp("", "upgraph-catalog-"); err != nil {
			return fail(err)
		}
		defer os.RemoveAll(tmp)
		dir := filepath.Join(tmp, configsDir)
		if _, err := s.extract(ctx, img, digest, dir, &info); err != nil {
			return fail(err)
		}
		cfg, err = read(dir)
	}
	if err != nil {
		return fail(err)
	}
	return cfg, info, nil
}

// readCached reads the catalog of img, whose manifest digest is digest,
// from its entry in c, extracting it there first on a miss. Should read
// fail on an entry that is gone meanwhile (another run's pruning renamed
// it away as this load began to read it: possible only for an entry no
// run used for two hours, whose time this load's get was setting), the
// image is extracted again and read once more, so that a run never fails
// for another's pruning.
func (s *Image) readCached(ctx context.Context, c cache, img v1.Image, digest v1.Hash, info *Info, read func(dir string) (*declcfg.DeclarativeConfig, error)) (*declcfg.DeclarativeConfig, error) {
	fill := func(dest string) (cacheEntry, error) { return s.extract(ctx, img, digest, dest, info) }
	use := func(e cacheEntry, dir string) (*declcfg.DeclarativeConfig, error) {
		info.ConfigsDir = e.ConfigsDir
		if info.Platform == "" {
			info.Platform = e.Platform
		}
		return read(dir)
	}
	e, dir, ok := c.get(digest)
	if !ok {
		var err error
		if e, dir, err = c.put(digest, fill); err != nil {
			return nil, err
		}
		return use(e, dir)
	}
	info.Cached = true
	cfg, err := use(e, dir)
	if err == nil || !c.gone(digest) {
		return cfg, err
	}
	s.logger().Info("catalog cache entry removed by another run's pruning while read: extracting the image again", "digest", digest.String(), "dir", dir, "err", err)
	info.Cached = false
	if e, dir, err = c.put(digest, fill); err != nil {
		return nil, err
	}
	return use(e, dir)
}

// choose returns the image the descriptor names, or the one of its index
// for platform, and records the choice.
func choose(desc *remote.Descriptor, platform v1.Platform, info *Info) (v1.Image, error) {
	switch {
	case desc.MediaType.IsIndex():
		idx, err := desc.ImageIndex()
		if err != nil {
			return nil, err
		}
		im, err := idx.IndexManifest()
		if err != nil {
			return nil, err
		}
		info.IndexDigest = desc.Digest.String()
		var chosen *v1.Descriptor
		for i, m := range im.Manifests {
			p := "unknown"
			if m.Platform != nil {
				p = m.Platform.String()
			}
			info.Platforms = append(info.Platforms, p)
			if chosen == nil && m.MediaType.IsImage() && m.Platform != nil && m.Platform.Satisfies(platform) {
				chosen = &im.Manifests[i]
			}
		}
		if chosen == nil {
			return nil, fmt.Errorf("index %s has no %s image (it has %s); choose a platform", desc.Digest, platform, strings.Join(info.Platforms, ", "))
		}
		info.Digest = chosen.Digest.String()
		info.Platform = chosen.Platform.String()
		return idx.Image(chosen.Digest)
	case desc.MediaType.IsImage():
		info.Digest = desc.Digest.String()
		return desc.Image()
	default:
		return nil, fmt.Errorf("%s is neither an image nor an index (media type %s)", desc.Digest, desc.MediaType)
	}
}

// extract checks the image's labels and copies its configs directory to
// dest.
func (s *Image) extract(ctx context.Context, img v1.Image, digest v1.Hash, dest string, info *Info) (cacheEntry, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return cacheEntry{}, fmt.Errorf("image %s: config: %w", digest, err)
	}
	if info.Platform == "" {
		if p := cf.Platform(); p != nil {
			info.Platform = p.String()
		}
	}
	labels := cf.Config.Labels
	dirLabel, ok := labels[ConfigsLabel]
	if !ok {
		return cacheEntry{}, notACatalog(labels)
	}
	dir := cleanPath(dirLabel)
	if dir == "" {
		return cacheEntry{}, fmt.Errorf("label %s=%q does not name a directory below the image root", ConfigsLabel, dirLabel)
	}
	info.ConfigsDir = "/" + dir
	stats, err := extract(ctx, img, dir, dest)
	if err != nil {
		return cacheEntry{}, err
	}
	switch {
	case !stats.Found && stats.NotDir != "":
		// A link is not followed: the label names the catalog's own
		// directory, which is read as it is.
		return cacheEntry{}, fmt.Errorf("label %s=%s names %s, not a directory (the label must name the catalog directory itself)", ConfigsLabel, dirLabel, stats.NotDir)
	case !stats.Found:
		return cacheEntry{}, fmt.Errorf("label %s=%s names a directory the image does not have", ConfigsLabel, dirLabel)
	}
	s.logger().Debug("catalog image extracted", "digest", digest.String(), "files", stats.Files, "bytes", stats.Bytes, "layersRead", stats.LayersRead, "layers", stats.LayersTotal)
	return cacheEntry{Digest: digest.String(), ConfigsDir: info.ConfigsDir, Platform: info.Platform, Files: stats.Files, Bytes: stats.Bytes}, nil
}

// notACatalog says why an image without the configs label is refused.
func notACatalog(labels map[string]string) error {
	if db, ok := labels[DatabaseLabel]; ok {
		return fmt.Errorf("sqlite-based index images are no longer supported, migrate to a file-based catalog: the image has label %s=%s but no %s", DatabaseLabel, db, ConfigsLabel)
	}
	if pkg, ok := labels[BundlePackageLabel]; ok {
		return fmt.Errorf("an operator bundle image (label %s=%s), not a catalog: label %s is missing", BundlePackageLabel, pkg, ConfigsLabel)
	}
	msg := fmt.Sprintf("not a file-based catalog image: label %s is missing", ConfigsLabel)
	if len(labels) > 0 {
		msg += " (its labels: " + strings.Join(slices.Sorted(maps.Keys(labels)), ", ") + ")"
	} else {
		msg += " (it has no labels)"
	}
	return fmt.Errorf("%s", msg)
}
