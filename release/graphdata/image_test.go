package graphdata_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"

	"github.com/upgraph/upgraph"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/zstdtest"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graphdata"
)

// tarLayer is an uncompressed tar layer of files (path → content).
func tarLayer(t *testing.T, files map[string]string) v1.Layer {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg})
		tw.Write([]byte(files[name]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return static.NewLayer(buf.Bytes(), types.DockerUncompressedLayer)
}

func readAll(t *testing.T, fsys fs.FS) map[string]string {
	files := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		files[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// imageSig is a release signature a graph-data image carries for the
// metadata-helper.
var imageSig = "signatures/sha256/" + strings.Repeat("ab", 32) + "/signature-1"

func TestOpenImage(t *testing.T) {
	reg := rt.Start(t)
	demo := readAll(t, upgraph.DemoGraphData())
	const root = "var/lib/cincinnati/graph-data/"
	lower := map[string]string{
		"usr/share/doc/version":             "not graph-data", // a decoy "version" outside the tree
		root + "README.md":                  "dropped: upstream keeps only graph-data paths",
		root + "channels/obsolete-4.1.yaml": "name: obsolete-4.1\nversions: []\n",
		root + imageSig:                     "signature bytes",
	}
	for name, body := range demo {
		lower[root+name] = body
	}
	upper := map[string]string{
		root + "channels/.wh.obsolete-4.1.yaml": "", // deleted by the upper layer
		root + "channels/stable-4.15.yaml":      demo["channels/stable-4.15.yaml"] + "# patched\n",
	}
	img := rt.Image(t, "amd64", false, tarLayer(t, lower), tarLayer(t, upper))
	ref := reg.Host + "/openshift/graph-data:latest"
	rt.Push(t, ref, img)

	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := graphdata.OpenImage(context.Background(), c, ref)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, fsys)
	want := maps.Clone(demo)
	want["channels/stable-4.15.yaml"] += "# patched\n"
	want[imageSig] = "signature bytes"
	if !maps.Equal(got, want) {
		t.Errorf("image tree: got files %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	gd, err := graphdata.Load(fsys, graphdata.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(gd.Channels) != 6 {
		t.Errorf("loaded %d channels from the image, want the demo's 6", len(gd.Channels))
	}
	if sigs := gd.Signatures["sha256:"+strings.Repeat("ab", 32)]; len(sigs) != 1 || string(sigs[0].Data) != "signature bytes" {
		t.Errorf("signatures from the image: %v, want the one in it", gd.Signatures)
	}

	// By digest too, and a missing image names the reference.
	byDigest := reg.Host + "/openshift/graph-data@" + rt.Digest(t, img)
	if _, err := graphdata.OpenImage(context.Background(), c, byDigest); err != nil {
		t.Errorf("by digest: %v", err)
	}
	_, err = graphdata.OpenImage(context.Background(), c, reg.Host+"/openshift/graph-data:missing")
	if err == nil || !strings.Contains(err.Error(), "graph-data:missing") {
		t.Errorf("missing tag: want an error naming it, got %v", err)
	}
}

func gzipBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstdBytes(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOpenImageCompression pulls graph-data images whose layer is gzip,
// zstd or a plain tar from a real registry: a zstd frame declaring a
// window over 128 MiB (zstd's own default limit) is refused, naming the
// image, the layer and the limit, without the decoder allocating it.
func TestOpenImageCompression(t *testing.T) {
	reg := rt.Start(t)
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	demo := readAll(t, upgraph.DemoGraphData())
	tarball := tarLayer(t, demo)
	rc, err := tarball.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		blob []byte
		mt   types.MediaType
		err  string // "" when the image opens
	}{
		{"plain tar", plain, types.OCIUncompressedLayer, ""},
		{"gzip", gzipBytes(t, plain), types.OCILayer, ""},
		{"zstd", zstdBytes(t, plain), types.OCILayerZStd, ""},
		{"zstd window at the limit", zstdtest.Window(27, plain), types.OCILayerZStd, ""},
		{"gzip cut short", gzipBytes(t, plain)[:len(gzipBytes(t, plain))/2], types.OCILayer, "unexpected EOF"},
		{"zstd window of 256 MiB", zstdtest.Window(28, plain), types.OCILayerZStd, "zstd frame needs a window of more than 134217728 bytes, zstd's own default limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			layer := static.NewLayer(tc.blob, tc.mt)
			ref := reg.Host + "/openshift/graph-data:" + strings.ReplaceAll(tc.name, " ", "-")
			rt.Push(t, ref, rt.Image(t, "amd64", true, layer))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			fsys, err := graphdata.OpenImage(context.Background(), c, ref)
			runtime.ReadMemStats(&after)
			if tc.err != "" {
				digest, _ := layer.Digest()
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), digest.String()) {
					t.Fatalf("got %v, want an error naming %s, layer %s and %q", err, ref, digest, tc.err)
				}
				if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
					t.Errorf("refusing the layer allocated %d bytes, want under 64 MiB", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, fsys); !maps.Equal(got, demo) {
				t.Errorf("image tree: got files %v, want the demo's %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(demo)))
			}
		})
	}
}
