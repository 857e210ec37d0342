package graphdata

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
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

// boundedLayer decompresses the layer's blob itself, sniffing the format
// as go-containerregistry does: gzip, zstd with a bounded window, else
// an uncompressed tar.
type boundedLayer struct{ v1.Layer }

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

func (l boundedLayer) Uncompressed() (io.ReadCloser, error) {
	digest, err := l.Digest()
	if err != nil {
		return nil, err
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", digest, err)
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	head, err := br.Peek(4)
	if err != nil && err != io.EOF {
		rc.Close()
		return nil, fmt.Errorf("layer %s: %w", digest, err)
	}
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("layer %s: %w", digest, err)
		}
		return &layerReader{zr, digest, func() { zr.Close(); rc.Close() }}, nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstdlimit.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("layer %s: %w", digest, err)
		}
		return &layerReader{zr, digest, func() { zr.Close(); rc.Close() }}, nil
	default:
		return &layerReader{br, digest, func() { rc.Close() }}, nil
	}
}

// layerReader is a layer's uncompressed bytes; its errors name the layer
// (and, for a zstd window over the bound, the bound).
type layerReader struct {
	r      io.Reader
	digest v1.Hash
	close  func()
}

func (l *layerReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case zstdlimit.Exceeded(err):
		err = fmt.Errorf("layer %s: zstd frame needs a window of more than %d bytes, zstd's own default limit: %w", l.digest, zstdlimit.MaxWindow, err)
	default:
		err = fmt.Errorf("layer %s: %w", l.digest, err)
	}
	return n, err
}

func (l *layerReader) Close() error {
	l.close()
	return nil
}
