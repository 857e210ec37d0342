package imagebuild

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph/internal/parallel"
)

// Options says what Build builds.
type Options struct {
	// Binary gives each platform's binary: GoBuild{…}.Binary compiles
	// them, Prebuilt reuses files. Required.
	Binary BinaryFunc
	// Platforms default to DefaultPlatforms; the index lists them in
	// this order.
	Platforms []v1.Platform
	// Meta is the source's description; Created, Revision and Version
	// are required (ResolveMetadata fills them).
	Meta Metadata
	// Title and Description default to DefaultTitle and
	// DefaultDescription; Licenses (an SPDX expression) is omitted when
	// empty, as the repository carries no license file.
	Title, Description, Licenses string
	// Jobs bounds how many platforms are compiled and compressed at once;
	// GOMAXPROCS when 0.
	Jobs int
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

const (
	DefaultTitle       = "upgraph"
	DefaultDescription = "Static OpenShift update graphs (Cincinnati) from release images and graph-data, and a server for them"
)

// Build makes the multi-platform image index: one OCI image manifest per
// platform, each with a platform in the index, and the OCI labels as the
// index's annotations. Platforms are built in parallel; the result does
// not depend on which finishes first.
func Build(ctx context.Context, o Options) (v1.ImageIndex, error) {
	if o.Binary == nil {
		return nil, errors.New("image build: no Binary function")
	}
	if o.Meta.Created.IsZero() || o.Meta.Revision == "" || o.Meta.Version == "" {
		return nil, fmt.Errorf("image build: metadata needs a created time, a revision and a version (got %+v)", o.Meta)
	}
	platforms := o.Platforms
	if len(platforms) == 0 {
		platforms = DefaultPlatforms
	}
	log := logger(o.Logger)
	labels := o.labels()

	scratch, err := os.MkdirTemp("", "imagebuild-")
	if err != nil {
		return nil, fmt.Errorf("image build: scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)

	images := make([]v1.Image, len(platforms))
	jobs := cmp.Or(o.Jobs, runtime.GOMAXPROCS(0))
	err = parallel.Run(ctx, jobs, len(platforms), func(ctx context.Context, _, i int) error {
		p := platforms[i]
		dir := filepath.Join(scratch, strings.ReplaceAll(p.String(), "/", "-"))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("image for %s: %w", p.String(), err)
		}
		bin, err := o.Binary(ctx, p, dir)
		if err != nil {
			return fmt.Errorf("image for %s: %w", p.String(), err)
		}
		img, err := platformImage(bin, p, o.Meta.Created, labels)
		if err != nil {
			return fmt.Errorf("image for %s: %w", p.String(), err)
		}
		// The layer is in memory now; the compiled binary can go.
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("image for %s: %w", p.String(), err)
		}
		images[i] = img
		return nil
	})
	if err != nil {
		return nil, err
	}

	adds := make([]mutate.IndexAddendum, len(platforms))
	for i, img := range images {
		p := platforms[i]
		adds[i] = mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}}
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	idx, ok := mutate.Annotations(idx, labels).(v1.ImageIndex)
	if !ok {
		return nil, errors.New("image build: annotating the index did not return an index")
	}
	// Computing the digest now surfaces any error here rather than in
	// WriteLayout or Push.
	d, err := idx.Digest()
	if err != nil {
		return nil, fmt.Errorf("image build: index digest: %w", err)
	}
	log.Info("built image index", "digest", d.String(), "version", o.Meta.Version, "revision", o.Meta.Revision,
		"platforms", len(platforms))
	return idx, nil
}

// labels are the OCI annotation keys the config labels and the index
// annotations both carry.
func (o Options) labels() map[string]string {
	l := map[string]string{
		"org.opencontainers.image.source":      cmp.Or(o.Meta.Source, DefaultSource),
		"org.opencontainers.image.revision":    o.Meta.Revision,
		"org.opencontainers.image.version":     o.Meta.Version,
		"org.opencontainers.image.created":     o.Meta.Created.UTC().Format(time.RFC3339),
		"org.opencontainers.image.title":       cmp.Or(o.Title, DefaultTitle),
		"org.opencontainers.image.description": cmp.Or(o.Description, DefaultDescription),
	}
	if o.Licenses != "" {
		l["org.opencontainers.image.licenses"] = o.Licenses
	}
	return l
}

// platformImage is the single-layer OCI image of bin for p.
func platformImage(bin string, p v1.Platform, created time.Time, labels map[string]string) (v1.Image, error) {
	entries, err := rootfs(bin, created)
	if err != nil {
		return nil, err
	}
	l, err := newLayer(entries)
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer: l,
		// A history entry without a time would say 0001-01-01.
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "internal/imagebuild: " + BinaryPath + ", /etc/passwd, /etc/group, /tmp, " + DataDir,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("adding the layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		// Numeric, so a runtime enforcing runAsNonRoot can tell without
		// reading /etc/passwd.
		User:         fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint:   []string{BinaryPath},
		Cmd:          []string{"--help"},
		WorkingDir:   DataDir,
		Env:          []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + DataDir},
		ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		Labels:       maps.Clone(labels),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return img, nil
}
