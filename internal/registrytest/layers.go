package registrytest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// MetadataPath is where OpenShift release images keep their Cincinnati
// metadata document.
const MetadataPath = "release-manifests/release-metadata"

// epoch is the fixed timestamp for tar entries and image configs, so builds
// are reproducible (it is the 4.1.0 GA date, for flavour).
var epoch = time.Date(2019, 6, 4, 0, 0, 0, 0, time.UTC)

// Doc builds a cincinnati-metadata-v0 document. nil previous or metadata are
// emitted as [] and {} like the real release payloads do.
func Doc(version string, previous []string, metadata map[string]string) map[string]any {
	if previous == nil {
		previous = []string{}
	}
	if metadata == nil {
		metadata = map[string]string{}
	}
	return map[string]any{
		"kind":     "cincinnati-metadata-v0",
		"version":  version,
		"previous": previous,
		"next":     []string{},
		"metadata": metadata,
	}
}

// LayerOption tunes MetadataLayer.
type LayerOption func(*layerSpec)

type layerSpec struct {
	oci           bool
	fillerSize    int
	seed          uint64
	metadataFirst bool
}

// OCI gives the layer the OCI media type instead of Docker's. Image
// normalises layer media types anyway; this matters for callers that use
// the layer on its own.
func OCI() LayerOption { return func(s *layerSpec) { s.oci = true } }

// FillerSize sets the size of the incompressible manifest file stored before
// the metadata (default 4 KiB); around 1<<20 gives realistically sized
// release-manifests layers for benchmarks.
func FillerSize(n int) LayerOption { return func(s *layerSpec) { s.fillerSize = n } }

// Seed varies the filler content, for layers that must differ in digest while
// carrying the same document.
func Seed(seed uint64) LayerOption { return func(s *layerSpec) { s.seed = seed } }

// MetadataFirst stores release-metadata as the first entry. By default it
// comes after the filler, as in real payloads where release-manifests/0000_*
// sort first, so scanners cannot rely on finding it early.
func MetadataFirst() LayerOption { return func(s *layerSpec) { s.metadataFirst = true } }

// MetadataLayer builds a gzip tar layer like an OpenShift release payload's
// manifests layer, with doc JSON-encoded at MetadataPath. A []byte or string
// doc is stored verbatim, for malformed-document tests.
func MetadataLayer(t testing.TB, doc any, opts ...LayerOption) v1.Layer {
	t.Helper()
	spec := layerSpec{fillerSize: 4 << 10}
	for _, o := range opts {
		o(&spec)
	}
	var meta []byte
	switch d := doc.(type) {
	case []byte:
		meta = d
	case string:
		meta = []byte(d)
	default:
		var err error
		if meta, err = json.Marshal(doc); err != nil {
			t.Fatalf("registrytest: encoding release metadata %v: %v", doc, err)
		}
	}

	metaFile := tarFile{MetadataPath, meta}
	files := []tarFile{
		{"release-manifests/0000_00_cluster-version-operator_filler.yaml", noise(spec.seed, spec.fillerSize)},
		{"release-manifests/image-references", []byte(`{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","spec":{"tags":[]}}` + "\n")},
		metaFile,
	}
	if spec.metadataFirst {
		files = append([]tarFile{metaFile}, files[:2]...)
	}
	return gzipLayer(t, spec.oci, append([]tarFile{{Name: "release-manifests/"}}, files...))
}

// FillerLayer builds a layer of size pseudo-random bytes (different per seed)
// with no release metadata, standing in for base OS and operator layers.
func FillerLayer(t testing.TB, seed uint64, size int, oci bool) v1.Layer {
	t.Helper()
	name := fmt.Sprintf("usr/share/registrytest/filler-%d.bin", seed)
	return gzipLayer(t, oci, []tarFile{
		{Name: "usr/"}, {Name: "usr/share/"}, {Name: "usr/share/registrytest/"},
		{name, noise(seed, size)},
	})
}

// tarFile is a regular file, or a directory when Name ends in "/".
type tarFile struct {
	Name string
	Data []byte
}

// gzipLayer tars and gzips files with fixed metadata so equal inputs give
// equal digests.
func gzipLayer(t testing.TB, oci bool, files []tarFile) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf) // zero ModTime and no name: reproducible
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{
			Name:    f.Name,
			ModTime: epoch,
			Format:  tar.FormatPAX,
		}
		if f.Name != "" && f.Name[len(f.Name)-1] == '/' {
			hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
		} else {
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, int64(len(f.Data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("registrytest: tar header %s: %v", f.Name, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			t.Fatalf("registrytest: tar data %s: %v", f.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatalf("registrytest: closing tar: %v", err)
	}
	if err := zw.Close(); err != nil {
		t.Fatalf("registrytest: closing gzip: %v", err)
	}

	mt := types.DockerLayer
	if oci {
		mt = types.OCILayer
	}
	blob := buf.Bytes()
	// The opener hands back our gzip bytes as they are, so the layer digest
	// is the digest of exactly these bytes (no recompression).
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(blob)), nil
	}, tarball.WithMediaType(mt))
	if err != nil {
		t.Fatalf("registrytest: making layer: %v", err)
	}
	return l
}

// noise returns n deterministic, incompressible bytes, so gzip cannot shrink
// filler and layer sizes stay close to what was asked for.
func noise(seed uint64, n int) []byte {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(b) // never fails
	return b
}
