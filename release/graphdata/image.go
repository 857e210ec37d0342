package graphdata

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"io/fs"
	"regexp"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/upgraph/upgraph/internal/zstdlimit"
	"github.com/upgraph/upgraph/registry"
)

// ImagePrefix marks a graph-data reference that names a container image,
// as the OpenShift update service's graph-data images are shipped.
const ImagePrefix = "image:"

// imagePaths are the files upstream's dkrv2-secondary-metadata-scrape
// keeps from a graph-data image (spec §3.12), plus the release signatures
// its metadata-helper serves from the same image and upgraph's phased
// rollouts (rollouts/*.yaml, docs/rollouts.md).
var imagePaths = regexp.MustCompile(`(^|/)(LICENSE|version|raw/metadata\.json|channels/.+\.ya+ml|blocked-edges/.+\.ya+ml|signatures/.+|rollouts/[^/]+\.yaml)$`)

// OpenImage pulls a graph-data image (a tag or digest reference) and
// returns its tree. Layers are applied in order with whiteouts honoured,
// so a later layer can delete or replace a file.
func OpenImage(ctx context.Context, c *registry.Client, ref string) (fs.FS, error) {
	r, err := c.Reference(ref)
	if err != nil {
		return nil, fmt.Errorf("graph-data: %w", err)
	}
	desc, err := c.Puller.Get(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("graph-data image %s: %w", ref, err)
	}
	img, err := desc.Image()
	if err != nil {
		return nil, fmt.Errorf("graph-data image %s: %w", ref, err)
	}
	fsys, err := FromImage(img)
	if err != nil {
		return nil, fmt.Errorf("graph-data image %s: %w", ref, err)
	}
	return fsys, nil
}

// FromImage reads the graph-data tree out of an image from any source
// (registry, OCI layout, tarball). A zstd layer is read with a window of
// at most zstdlimit.MaxWindow (128 MiB), as release/scrape reads release
// images' layers.
func FromImage(img v1.Image) (fs.FS, error) {
	rc := mutate.Extract(boundedImage{img})
	defer rc.Close()
	fsys, err := readTar(tar.NewReader(rc), imagePaths.MatchString, maxArchiveEntries)
	// go-containerregistry ends the flattened tar (writes its trailer)
	// before it reports a layer it could not read, so the tar reader sees
	// a clean end and the error only follows the trailer: a cut or
	// refused layer would otherwise pass for the end of the image.
	if _, xerr := io.Copy(io.Discard, io.LimitReader(rc, 64<<10)); xerr != nil {
		return nil, xerr
	}
	return fsys, err
}

// boundedImage is an image whose layers decompress through
// boundedLayer: go-containerregistry's own Uncompressed reads a zstd
// layer with klauspost/compress's defaults, which allocate whatever
// window (up to 512 MiB) or single-segment frame size the layer's header
// declares, however small the layer.
type boundedImage struct{ v1.Image }

func (i boundedImage) Layers() ([]v1.Layer, error) {
	layers, err := i.Image.Layers()
	if err != nil {
		return nil, err
	}
	out := make([]v1.Layer, len(layers))
	for n, l := range layers {
		out[n] = boundedLayer{l}
	}
	return out, nil
}

// boundedLayer decompresses through zstdlimit.Uncompressed.
type boundedLayer struct{ v1.Layer }

func (l boundedLayer) Uncompressed() (io.ReadCloser, error) { return zstdlimit.Uncompressed(l.Layer) }
