// Package ocitree keeps a tree in an OCI registry, as an image that the
// tools air-gapped sites already mirror images with (skopeo, oc-mirror)
// copy without special flags: an OCI image manifest with a minimal image
// config and one layer, application/vnd.oci.image.layer.v1.tar+gzip, that
// is exactly the deterministic bundle generator/bundle writes, so the
// tree unpacks at the image root.
//
// Everything in the image derives from the tree: its config's created
// time and its annotations come from index.json, never from the clock, so
// the same tree always gives the same manifest digest, whatever the tag.
package ocitree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Scheme prefixes the references Push and Pull take: oci://HOST/REPO:TAG
// or oci://HOST/REPO@sha256:HEX.
const Scheme = "oci://"

// Annotations set on the manifest (and, as labels, in the image config,
// where `skopeo inspect` shows them).
const (
	// AnnotationCreated is the tree's generatedAt.
	AnnotationCreated = "org.opencontainers.image.created"
	// AnnotationTitle names what the image is.
	AnnotationTitle = "org.opencontainers.image.title"
	// AnnotationFormat is FormatV1.
	AnnotationFormat = "io.upgraph.tree.format"
	// AnnotationIndexDigest is the "sha256:HEX" of index.json: the
	// generation's identity (manifest.Digest).
	AnnotationIndexDigest = "io.upgraph.index.digest"
	// AnnotationGeneratedAt is index.json's generatedAt.
	AnnotationGeneratedAt = "io.upgraph.generated-at"
	// AnnotationGraphDataVersion and AnnotationGraphDataDigest identify
	// the graph-data the tree was generated from.
	AnnotationGraphDataVersion = "io.upgraph.graph-data.version"
	AnnotationGraphDataDigest  = "io.upgraph.graph-data.digest"
	// AnnotationReleasesDigest identifies the release set.
	AnnotationReleasesDigest = "io.upgraph.releases.digest"
	// AnnotationCounts is index.json's counts, as JSON.
	AnnotationCounts = "io.upgraph.counts"
)

// FormatV1 is the value of AnnotationFormat for the layout described in
// the package documentation.
const FormatV1 = "application/vnd.upgraph.tree.v1"

// Options configure registry access.
type Options struct {
	// Registry is the credentials (Keychain, default: the docker config),
	// extra trust roots (CAFile) and plain-HTTP policy (PlainHTTP; loopback
	// registries talk plain HTTP anyway) as for every other registry
	// upgraph reads. Its retry settings are not used: go-containerregistry
	// retries pushes itself.
	Registry registry.Options
	// TempDir holds the bundle while it is pushed or pulled (default:
	// os.TempDir()).
	TempDir string
	// MaxLayerBytes bounds the compressed bytes of a pulled tree's layer,
	// which are written to TempDir before bundle.Unpack reads them
	// (default DefaultMaxLayerBytes).
	MaxLayerBytes int64
}

// DefaultMaxLayerBytes bounds a pulled tree's layer, its bundle: 65 GiB,
// the content bundle.Unpack accepts (bundle.Limits.MaxBytes, 64 GiB, and
// index.json's MaxIndexBytes, 512 MiB) and 512 MiB for the tar headers
// and gzip's framing (deflate adds 5 bytes per 64 KiB stored block to
// incompressible data). A larger layer could only unpack to more than
// Unpack accepts, so it is refused before a byte of it is written: a
// registry or an OCI layout could otherwise fill TempDir. The real-scale
// tree's bundle is a few hundred MB.
const DefaultMaxLayerBytes = 65 << 30

// Pushed describes a tree written to a registry.
type Pushed struct {
	// Ref is the repository with the manifest digest: what to pull.
	Ref name.Digest
	// Tag is the reference pushed to (a tag or the digest itself).
	Tag name.Reference
	// Digest is the manifest's.
	Digest v1.Hash
	// Layer is the bundle's digest, the layer's.
	Layer    v1.Hash
	Manifest *manifest.Manifest
	// Annotations are the manifest's.
	Annotations map[string]string
}

// ParseReference parses "oci://HOST/REPO:TAG" or "oci://HOST/REPO@sha256:…";
// the registry and the tag are required (nothing defaults to Docker Hub
// or latest). plainHTTP talks plain HTTP to the registry; loopback
// registries do anyway.
func ParseReference(s string, plainHTTP bool) (name.Reference, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return nil, fmt.Errorf("%q: want oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:DIGEST", s)
	}
	opts := []name.Option{name.StrictValidation}
	if plainHTTP {
		opts = append(opts, name.Insecure)
	}
	ref, err := name.ParseReference(rest, opts...)
	if err != nil {
		return nil, fmt.Errorf("%q: want oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:DIGEST (%w)", s, err)
	}
	return ref, nil
}

// Push verifies the tree at dir (refusing one that fails, with the
// *bundle.Error naming every bad file), packs it into a bundle and pushes
// it to ref (see ParseReference) as the image the package documentation
// describes. A digest reference must be the digest of the image the tree
// makes.
func Push(ctx context.Context, dir, ref string, opts Options) (*Pushed, error) {
	r, remoteOpts, err := reference(ctx, ref, opts.Registry)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a tree directory", dir)
	}
	sum, err := bundle.Verify(ctx, dir, bundle.Limits{})
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "upgraph-push-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "tree.tar.gz")
	w, err := bundle.Write(ctx, dir, file)
	if err != nil {
		return nil, err
	}
	index, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		return nil, err
	}
	img, err := Image(file, sum.Manifest, index)
	if err != nil {
		return nil, err
	}
	ann := Annotations(sum.Manifest, index)
	digest, err := img.Digest()
	if err != nil {
		return nil, err
	}
	if d, ok := r.(name.Digest); ok && d.DigestStr() != digest.String() {
		return nil, fmt.Errorf("%s: the tree's image is %s, not the digest named", ref, digest)
	}
	if err := remote.Write(r, img, remoteOpts...); err != nil {
		return nil, fmt.Errorf("pushing to %s: %w", r, err)
	}
	// The layer is the bundle file as it is.
	return &Pushed{
		Ref: r.Context().Digest(digest.String()), Tag: r, Digest: digest,
		Layer: v1.Hash{Algorithm: "sha256", Hex: w.SHA256}, Manifest: sum.Manifest, Annotations: ann,
	}, nil
}

// Image is the image of the bundle file (as bundle.Write writes it) of
// the tree with index.json index, parsed as m. It reads nothing but the
// bundle, and only when the image's layer is read.
func Image(file string, m *manifest.Manifest, index []byte) (v1.Image, error) {
	created, err := time.Parse(time.RFC3339, m.GeneratedAt)
	if err != nil {
		return nil, fmt.Errorf("index.json generatedAt %q: %w", m.GeneratedAt, err)
	}
	layer, err := tarball.LayerFromFile(file, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	ann := Annotations(m, index)
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	// linux/amd64 only so that tools which pick a platform (podman pull)
	// take it: the tree is data, the same for every platform.
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: "amd64",
		OS:           "linux",
		Created:      v1.Time{Time: created.UTC()},
		Config:       v1.Config{Labels: ann},
		RootFS:       v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: created.UTC()},
			CreatedBy: "upgraph push",
			Comment:   "tree " + ann[AnnotationIndexDigest],
		},
	})
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, ann).(v1.Image), nil
}

// Annotations are the manifest annotations of the tree with index.json
// index, parsed as m.
func Annotations(m *manifest.Manifest, index []byte) map[string]string {
	var counts bytes.Buffer
	c := m.Counts
	// By hand, in index.json's key order, so that it never depends on
	// how a JSON encoder orders or spaces things.
	fmt.Fprintf(&counts, `{"releases":%d,"abstractReleases":%d,"edges":%d,"conditionalEdges":%d,"graphs":%d,"versionGraphs":%d,"files":%d,"bytes":%d,"distinctFiles":%d,"distinctBytes":%d,"signatures":%d}`,
		c.Releases, c.AbstractReleases, c.Edges, c.ConditionalEdges, c.Graphs, c.VersionGraphs, c.Files, c.Bytes,
		c.DistinctFiles, c.DistinctBytes, c.Signatures)
	ann := map[string]string{
		AnnotationCreated:          m.GeneratedAt,
		AnnotationTitle:            "upgraph tree " + manifest.Digest(index),
		AnnotationFormat:           FormatV1,
		AnnotationIndexDigest:      manifest.Digest(index),
		AnnotationGeneratedAt:      m.GeneratedAt,
		AnnotationGraphDataVersion: m.Inputs.GraphData.Version,
		AnnotationGraphDataDigest:  m.Inputs.GraphData.Digest,
		AnnotationReleasesDigest:   m.Inputs.Releases.Digest,
		AnnotationCounts:           counts.String(),
	}
	for k, v := range ann {
		if v == "" {
			delete(ann, k)
		}
	}
	return ann
}

// reference parses ref (see ParseReference) and configures
// go-containerregistry to reach it as registry.Options say.
func reference(ctx context.Context, ref string, o registry.Options) (name.Reference, []remote.Option, error) {
	r, err := ParseReference(ref, o.PlainHTTP)
	if err != nil {
		return nil, nil, err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	tlsConfig, err := registry.TLSConfig(o.CAFile)
	if err != nil {
		return nil, nil, err
	}
	if tlsConfig != nil {
		base.TLSClientConfig = tlsConfig
	}
	kc := o.Keychain
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	return r, []remote.Option{
		remote.WithContext(ctx),
		remote.WithTransport(base),
		remote.WithAuthFromKeychain(kc),
		remote.WithUserAgent("upgraph"),
	}, nil
}

// Pulled is a tree read from a registry or an OCI layout, extracted into
// a private directory.
type Pulled struct {
	*bundle.Unpacked
	// Digest is the image manifest's.
	Digest v1.Hash
}

// Pull reads the tree pushed to ref (see ParseReference) and extracts it
// into a new directory under parent (os.TempDir() if ""), as
// bundle.Unpack does: the layer must have its digest, every file the one
// index.json gives (a bad one is named in a *bundle.Error), and index.json
// the digest the manifest's annotation gives. Nothing is left behind on
// failure.
func Pull(ctx context.Context, ref, parent string, opts Options) (*Pulled, error) {
	r, remoteOpts, err := reference(ctx, ref, opts.Registry)
	if err != nil {
		return nil, err
	}
	img, err := remote.Image(r, remoteOpts...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", r, err)
	}
	return extract(ctx, img, r.String(), parent, opts)
}

// PullLayout is Pull for an image in the OCI image layout dir: the one
// whose org.opencontainers.image.ref.name annotation is ref, or whose
// digest is ref ("sha256:HEX", "@sha256:HEX"), or with ref "" the only
// upgraph tree the layout holds.
func PullLayout(ctx context.Context, dir, ref, parent string, opts Options) (*Pulled, error) {
	idx, err := layout.ImageIndexFromPath(dir)
	var im *v1.IndexManifest
	if err == nil {
		im, err = idx.IndexManifest()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	label := dir
	if ref != "" {
		label += ":" + strings.TrimPrefix(ref, "@")
	}
	var found []v1.Descriptor
	for _, d := range im.Manifests {
		switch {
		case !d.MediaType.IsImage():
		case ref == "":
			if len(im.Manifests) == 1 || isTree(idx, d) {
				found = append(found, d)
			}
		case d.Annotations[annotationRefName] == ref || d.Digest.String() == strings.TrimPrefix(ref, "@"):
			found = append(found, d)
		}
	}
	// One image under several tags is one tree.
	slices.SortFunc(found, func(a, b v1.Descriptor) int { return strings.Compare(a.Digest.String(), b.Digest.String()) })
	found = slices.CompactFunc(found, func(a, b v1.Descriptor) bool { return a.Digest == b.Digest })
	switch {
	case len(found) == 0 && ref == "":
		return nil, fmt.Errorf("%s: the layout holds no upgraph tree", dir)
	case len(found) == 0:
		return nil, fmt.Errorf("%s: the layout has no image %q", dir, ref)
	case len(found) > 1:
		return nil, fmt.Errorf("%s: the layout holds %d images; name one (%sDIR:TAG or @sha256:DIGEST)", label, len(found), "oci-layout:")
	}
	img, err := idx.Image(found[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return extract(ctx, img, label, parent, opts)
}

// annotationRefName names an image in an OCI layout's index (its tag).
const annotationRefName = "org.opencontainers.image.ref.name"

// isTree reports whether the image d of a layout's index is an upgraph
// tree: by the descriptor's annotations when they were copied there, else
// by the image manifest's (go-containerregistry's layout.AppendImage, like
// mirroring tools, puts only the tag on the descriptor).
func isTree(idx v1.ImageIndex, d v1.Descriptor) bool {
	if d.Annotations[AnnotationFormat] == FormatV1 {
		return true
	}
	img, err := idx.Image(d.Digest)
	if err != nil {
		return false
	}
	m, err := img.Manifest()
	return err == nil && m.Annotations[AnnotationFormat] == FormatV1
}

// extract checks that img is an upgraph tree and extracts its layer.
func extract(ctx context.Context, img v1.Image, label, parent string, opts Options) (*Pulled, error) {
	m, err := img.Manifest()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", label, err)
	}
	digest, err := img.Digest()
	if err != nil {
		return nil, err
	}
	if m.Annotations[AnnotationFormat] != FormatV1 || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
		return nil, fmt.Errorf("%s: not an upgraph tree (want annotation %s=%s and one %s layer)", label, AnnotationFormat, FormatV1, types.OCILayer)
	}
	limit := opts.MaxLayerBytes
	if limit <= 0 {
		limit = DefaultMaxLayerBytes
	}
	if size := m.Layers[0].Size; size > limit {
		return nil, fmt.Errorf("%s: layer %s is %d bytes, over the %d bytes a tree's bundle may be: not downloaded", label, m.Layers[0].Digest, size, limit)
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "upgraph-pull-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "tree.tar.gz")
	if err := download(layers[0], file, limit); err != nil {
		return nil, fmt.Errorf("%s: layer %s (%d bytes in the manifest): %w", label, m.Layers[0].Digest, m.Layers[0].Size, err)
	}
	u, err := bundle.Unpack(ctx, file, parent, bundle.Limits{})
	if err != nil {
		var be *bundle.Error
		if errors.As(err, &be) {
			be.Path = label
		}
		return nil, err
	}
	index, err := os.ReadFile(filepath.Join(u.Dir, manifest.FileName))
	if err == nil && manifest.Digest(index) != m.Annotations[AnnotationIndexDigest] {
		err = fmt.Errorf("%s: index.json is %s, the manifest says %s", label, manifest.Digest(index), m.Annotations[AnnotationIndexDigest])
	}
	if err != nil {
		u.Close()
		return nil, err
	}
	return &Pulled{Unpacked: u, Digest: digest}, nil
}

// download copies the layer's compressed bytes to file, at most limit of
// them; go-containerregistry fails the read at the end when they do not
// have the layer's digest. It stops a registry's blob at the size the
// manifest gives, but an OCI layout's blob file is read to its end,
// whatever the manifest says: the copy is bounded here. Nothing is left
// at file on failure.
func download(l v1.Layer, file string, limit int64) (err error) {
	rc, err := l.Compressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(file)
		}
	}()
	n, err := f.ReadFrom(io.LimitReader(rc, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("more than %d bytes, the bound of a tree's bundle: not read further", limit)
	}
	return err
}
