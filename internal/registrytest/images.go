package registrytest

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Artifact is what Push and Digest accept: a v1.Image or a v1.ImageIndex.
type Artifact interface {
	MediaType() (types.MediaType, error)
	Digest() (v1.Hash, error)
	RawManifest() ([]byte, error)
}

// pushTimeout bounds a Push so a wedged registry fails the test instead of
// hanging it.
const pushTimeout = time.Minute

// Image builds a linux/arch image from layers, bottom to top. oci selects OCI
// manifest and config media types instead of Docker schema 2; layer media
// types are rewritten to match, so the same layers serve both flavours.
func Image(t testing.TB, arch string, oci bool, layers ...v1.Layer) v1.Image {
	t.Helper()
	base := empty.Image
	layerType := types.DockerLayer
	if oci {
		base = mutate.MediaType(base, types.OCIManifestSchema1)
		base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
		layerType = types.OCILayer
	}
	img, err := mutate.ConfigFile(base, &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		Created:      v1.Time{Time: epoch},
		RootFS:       v1.RootFS{Type: "layers"},
	})
	if err != nil {
		t.Fatalf("registrytest: setting %s image config: %v", arch, err)
	}
	adds := make([]mutate.Addendum, len(layers))
	for i, l := range layers {
		adds[i] = mutate.Addendum{
			Layer:     l,
			MediaType: layerType,
			History:   v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "registrytest"},
		}
	}
	if img, err = mutate.Append(img, adds...); err != nil {
		t.Fatalf("registrytest: appending layers to %s image: %v", arch, err)
	}
	// Resolve now so a broken layer fails here, next to its cause, rather
	// than deep inside a Push.
	if _, err := img.Digest(); err != nil {
		t.Fatalf("registrytest: computing %s image digest: %v", arch, err)
	}
	return img
}

// Index builds a manifest list (Docker) or image index (OCI) of images, each
// entry carrying platform linux/<the image's config architecture>.
func Index(t testing.TB, oci bool, images ...v1.Image) v1.ImageIndex {
	t.Helper()
	var base v1.ImageIndex = empty.Index // OCI index media type
	if !oci {
		base = mutate.IndexMediaType(base, types.DockerManifestList)
	}
	adds := make([]mutate.IndexAddendum, len(images))
	for i, img := range images {
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatalf("registrytest: reading config of index entry %d: %v", i, err)
		}
		adds[i] = mutate.IndexAddendum{
			Add: img,
			Descriptor: v1.Descriptor{
				Platform: &v1.Platform{OS: "linux", Architecture: cfg.Architecture},
			},
		}
	}
	idx := mutate.AppendManifests(base, adds...)
	if _, err := idx.Digest(); err != nil {
		t.Fatalf("registrytest: computing index digest: %v", err)
	}
	return idx
}

// Push uploads an image or index (with everything it references) to ref,
// e.g. "127.0.0.1:5000/ocp/release:4.1.0", and returns its digest. Loopback
// hosts are spoken to over plain HTTP.
func Push(t testing.TB, ref string, a Artifact) string {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatalf("registrytest: parsing reference %q: %v", ref, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pushTimeout)
	defer cancel()
	switch v := a.(type) {
	case v1.ImageIndex:
		err = remote.WriteIndex(r, v, remote.WithContext(ctx))
	case v1.Image:
		err = remote.Write(r, v, remote.WithContext(ctx))
	default:
		t.Fatalf("registrytest: Push %s: %T is neither a v1.Image nor a v1.ImageIndex", ref, a)
	}
	if err != nil {
		t.Fatalf("registrytest: pushing %s: %v", ref, err)
	}
	return Digest(t, a)
}

// Digest returns the manifest digest of an image or index, "sha256:<hex>".
func Digest(t testing.TB, a Artifact) string {
	t.Helper()
	h, err := a.Digest()
	if err != nil {
		t.Fatalf("registrytest: computing digest: %v", err)
	}
	return h.String()
}

// WriteLayout writes images and indexes into a new OCI image layout, each
// listed in index.json under its tag (org.opencontainers.image.ref.name),
// as mirroring tools do, and returns the layout's directory.
func WriteLayout(t testing.TB, tagged map[string]Artifact) string {
	t.Helper()
	dir := t.TempDir()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	for _, tag := range slices.Sorted(maps.Keys(tagged)) {
		ann := layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag})
		switch a := tagged[tag].(type) {
		case v1.ImageIndex:
			err = p.AppendIndex(a, ann)
		case v1.Image:
			err = p.AppendImage(a, ann)
		default:
			t.Fatalf("registrytest: WriteLayout %s: %T is neither a v1.Image nor a v1.ImageIndex", tag, a)
		}
		if err != nil {
			t.Fatalf("registrytest: writing %s to the layout: %v", tag, err)
		}
	}
	return dir
}
