package graphdata

import (
	"archive/tar"
	"context"
	"fmt"
	"io/fs"
	"regexp"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

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
// (registry, OCI layout, tarball).
func FromImage(img v1.Image) (fs.FS, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	return readTar(tar.NewReader(rc), imagePaths.MatchString, maxArchiveEntries)
}
