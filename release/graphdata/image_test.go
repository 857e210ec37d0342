package graphdata_test

import (
	"archive/tar"
	"bytes"
	"context"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph"
	rt "github.com/upgraph/upgraph/internal/registrytest"
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
