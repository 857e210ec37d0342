package ocitree

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/bundletest"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

var generatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var demoOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "upgraph-ocitree-test-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "demo")
	b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		return "", err
	}
	_, err = generator.Render(context.Background(), b, generator.RenderOptions{Store: writer.DirStore{Dir: out}, GeneratedAt: generatedAt})
	return out, err
})

// demoTree is the demo tree, generated once; tests must not modify it.
func demoTree(t *testing.T) string {
	t.Helper()
	dir, err := demoOnce()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := demoOnce(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

// TestPushDeterministic pushes the demo tree twice under one tag and once
// under another: one manifest digest. The manifest carries the
// annotations, the config the generation time, and the layer is the
// bundle, byte for byte.
func TestPushDeterministic(t *testing.T) {
	ctx := context.Background()
	reg := rt.Start(t)
	dir := demoTree(t)
	first, err := Push(ctx, dir, "oci://"+reg.Host+"/upgraph/tree:v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"oci://" + reg.Host + "/upgraph/tree:v1", "oci://" + reg.Host + "/other/tree:latest",
		"oci://" + reg.Host + "/upgraph/tree@" + first.Digest.String()} {
		again, err := Push(ctx, dir, ref, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if again.Digest != first.Digest || again.Layer != first.Layer {
			t.Errorf("%s: manifest %s layer %s, want %s and %s as the first push", ref, again.Digest, again.Layer, first.Digest, first.Layer)
		}
	}
	if want := reg.Host + "/upgraph/tree@" + first.Digest.String(); first.Ref.String() != want {
		t.Errorf("Ref = %s, want %s", first.Ref, want)
	}

	// What the registry serves.
	ref, err := name.ParseReference(reg.Host + "/other/tree:latest")
	if err != nil {
		t.Fatal(err)
	}
	desc, err := remote.Get(ref)
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest != first.Digest || desc.MediaType != types.OCIManifestSchema1 {
		t.Errorf("served %s %s, want %s %s", desc.MediaType, desc.Digest, types.OCIManifestSchema1, first.Digest)
	}
	var m v1.Manifest
	if err := json.Unmarshal(desc.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := manifest.Parse(index)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		AnnotationCreated:          "2026-01-02T03:04:05Z",
		AnnotationGeneratedAt:      "2026-01-02T03:04:05Z",
		AnnotationIndexDigest:      manifest.Digest(index),
		AnnotationGraphDataVersion: tm.Inputs.GraphData.Version,
		AnnotationFormat:           FormatV1,
	} {
		if m.Annotations[k] != want || want == "" {
			t.Errorf("annotation %s = %q, want %q", k, m.Annotations[k], want)
		}
	}
	var counts manifest.Counts
	if err := json.Unmarshal([]byte(m.Annotations[AnnotationCounts]), &counts); err != nil || counts != tm.Counts {
		t.Errorf("annotation %s = %s (%v), want index.json's counts %+v", AnnotationCounts, m.Annotations[AnnotationCounts], err, tm.Counts)
	}
	if m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
		t.Fatalf("config %s, layers %+v: want an OCI config and one OCI tar+gzip layer", m.Config.MediaType, m.Layers)
	}
	img, err := remote.Image(ref)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Created.Time.Equal(generatedAt) || cfg.OS != "linux" || cfg.Config.Labels[AnnotationIndexDigest] != manifest.Digest(index) {
		t.Errorf("config: created %v, os %q, labels %v", cfg.Created, cfg.OS, cfg.Config.Labels)
	}

	// The layer is the bundle bundle.Write writes.
	file := filepath.Join(t.TempDir(), "demo.tar.gz")
	w, err := bundle.Write(ctx, dir, file)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Layers[0].Digest.Hex; got != w.SHA256 || m.Layers[0].Size != w.Size {
		t.Errorf("layer %s (%d bytes), want the bundle's %s (%d bytes)", got, m.Layers[0].Size, w.SHA256, w.Size)
	}
	layer, err := remote.Layer(ref.Context().Digest(m.Layers[0].Digest.String()))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layer.Compressed()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the layer served (%d bytes) is not the bundle (%d bytes)", len(got), len(want))
	}

	// Pulled back, the tree is the same.
	p, err := Pull(ctx, "oci://"+reg.Host+"/other/tree:latest", t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Digest != first.Digest {
		t.Errorf("pulled %s, want digest %s", p.Digest, first.Digest)
	}
	sameTree(t, p.Dir, dir)
}

// TestPushRefused: a tree changed after generation is refused naming the
// file, before anything is pushed; so are references that are not oci://
// ones naming a registry and a tag or digest.
func TestPushRefused(t *testing.T) {
	ctx := context.Background()
	reg := rt.Start(t)
	dir := filepath.Join(t.TempDir(), "tree")
	bundletest.CopyTree(t, demoTree(t), dir)
	bad := manifest.GraphPath("amd64", "stable-4.16")
	if err := os.WriteFile(filepath.Join(dir, bad), []byte(`{"version":1,"nodes":[],"edges":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Push(ctx, dir, "oci://"+reg.Host+"/upgraph/tree:bad", Options{})
	var be *bundle.Error
	if !errors.As(err, &be) || len(be.Problems) != 1 || be.Problems[0].File != bad || !strings.Contains(err.Error(), bad) {
		t.Errorf("Push of a changed tree: %v, want a *bundle.Error naming %s", err, bad)
	}
	t.Log(err)
	if _, err := remote.Head(mustRef(t, reg.Host+"/upgraph/tree:bad")); err == nil {
		t.Error("the changed tree was pushed")
	}

	good := demoTree(t)
	for _, ref := range []string{
		reg.Host + "/upgraph/tree:v1",                                           // no scheme
		"oci://upgraph/tree:v1",                                                 // no registry
		"oci://" + reg.Host + "/upgraph/tree",                                   // no tag
		"oci://" + reg.Host + "/Upgraph/tree:v1",                                // upper case
		"oci://" + reg.Host + "/upgraph/tree@sha256:" + strings.Repeat("0", 64), // not the tree's digest
	} {
		if _, err := Push(ctx, good, ref, Options{}); err == nil {
			t.Errorf("Push to %q: no error", ref)
		} else {
			t.Log(err)
		}
	}
}

// TestPullTampered: a layer changed in the registry's storage fails its
// digest; a layer with its digest right but a file that is not the one
// index.json lists (pushed by something other than Push) is refused
// naming the file. Neither leaves anything behind.
func TestPullTampered(t *testing.T) {
	ctx := context.Background()
	reg := rt.Start(t)
	dir := demoTree(t)
	parent := t.TempDir()

	// A bundle with one file's bytes changed, its size kept.
	file := filepath.Join(t.TempDir(), "demo.tar.gz")
	if _, err := bundle.Write(ctx, dir, file); err != nil {
		t.Fatal(err)
	}
	victim := manifest.GraphPath("amd64", "stable-4.16")
	bundletest.Tamper(t, file, file, victim, bundletest.FlipFirstByte)
	index, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse(index)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Image(file, m, index)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(mustRef(t, reg.Host+"/upgraph/tree:tampered"), img); err != nil {
		t.Fatal(err)
	}
	_, err = Pull(ctx, "oci://"+reg.Host+"/upgraph/tree:tampered", parent, Options{})
	var be *bundle.Error
	if !errors.As(err, &be) || !strings.Contains(err.Error(), victim) {
		t.Errorf("Pull of a tampered file: %v, want a *bundle.Error naming %s", err, victim)
	}
	t.Log(err)

	// A layer changed behind the registry's back.
	pushed, err := Push(ctx, dir, "oci://"+reg.Host+"/upgraph/tree:v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join(reg.Root, "docker/registry/v2/blobs/sha256", pushed.Layer.Hex[:2], pushed.Layer.Hex, "data")
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Pull(ctx, "oci://"+reg.Host+"/upgraph/tree:v1", parent, Options{})
	if err == nil || !strings.Contains(err.Error(), pushed.Layer.String()) {
		t.Errorf("Pull of a tampered layer: %v, want an error naming the layer %s", err, pushed.Layer)
	}
	t.Log(err)
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("refused pulls left %d entries in %s", len(entries), parent)
	}
}

func mustRef(t *testing.T, s string) name.Reference {
	t.Helper()
	ref, err := name.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// sameTree fails unless the regular files below got and want are the same.
func sameTree(t *testing.T, got, want string) {
	t.Helper()
	files := func(dir string) map[string]string {
		out := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	g, w := files(got), files(want)
	if len(g) != len(w) {
		t.Errorf("%s has %d files, %s %d", got, len(g), want, len(w))
	}
	for name, data := range w {
		if g[name] != data {
			t.Errorf("%s differs", name)
		}
	}
}

// TestPullLayerBound: a layer the manifest says is larger than
// MaxLayerBytes is refused, naming the image, the layer, its size and the
// bound, before it is downloaded; a blob longer than its manifest says
// (an OCI layout's file, read to its end) is refused once the bound is
// passed. Nothing is left in TempDir or parent. A layer at the bound is
// pulled whole, as is a registry's blob longer than the manifest says.
func TestPullLayerBound(t *testing.T) {
	ctx := context.Background()
	dir := demoTree(t)
	file := filepath.Join(t.TempDir(), "demo.tar.gz")
	if _, err := bundle.Write(ctx, dir, file); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse(index)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Image(file, m, index)
	if err != nil {
		t.Fatal(err)
	}
	im, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	layer, size := im.Layers[0].Digest, im.Layers[0].Size
	const extra = 1 << 20 // bytes appended to the stored blob
	for _, tc := range []struct {
		name   string
		layout bool  // an OCI layout, else a registry
		append bool  // extra bytes appended to the stored layer blob
		limit  int64 // MaxLayerBytes
		want   []string
	}{
		{name: "registry, layer at the bound", limit: size},
		{name: "registry, default bound"},
		{name: "registry, layer over the bound", limit: size - 1,
			want: []string{"/upgraph/tree:v1", layer.String(), strconv.FormatInt(size, 10), strconv.FormatInt(size-1, 10) + " bytes", "not downloaded"}},
		// go-containerregistry reads a registry's blob up to the
		// manifest's size and checks the digest of those bytes: the
		// rest is never read.
		{name: "registry, blob longer than the manifest says", append: true, limit: size},
		{name: "layout, layer at the bound", layout: true, limit: size},
		{name: "layout, layer over the bound", layout: true, limit: size - 1,
			want: []string{":v1", layer.String(), strconv.FormatInt(size, 10), strconv.FormatInt(size-1, 10) + " bytes", "not downloaded"}},
		{name: "layout, blob longer than the manifest says", layout: true, append: true, limit: size,
			want: []string{":v1", layer.String(), "more than " + strconv.FormatInt(size, 10) + " bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{TempDir: t.TempDir(), MaxLayerBytes: tc.limit}
			parent := t.TempDir()
			var blob string
			var pull func() (*Pulled, error)
			var proxy *rt.Proxy
			if tc.layout {
				lay := rt.WriteLayout(t, map[string]rt.Artifact{"v1": img})
				blob = filepath.Join(lay, "blobs", layer.Algorithm, layer.Hex)
				pull = func() (*Pulled, error) { return PullLayout(ctx, lay, "v1", parent, opts) }
			} else {
				reg := rt.Start(t)
				if err := remote.Write(mustRef(t, reg.Host+"/upgraph/tree:v1"), img); err != nil {
					t.Fatal(err)
				}
				blob = filepath.Join(reg.Root, "docker/registry/v2/blobs/sha256", layer.Hex[:2], layer.Hex, "data")
				proxy = rt.NewProxy(t, reg.Host)
				pull = func() (*Pulled, error) { return Pull(ctx, "oci://"+proxy.Host+"/upgraph/tree:v1", parent, opts) }
			}
			if tc.append {
				f, err := os.OpenFile(blob, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(bytes.Repeat([]byte{0x5a}, extra))
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
			}
			p, err := pull()
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				sameTree(t, p.Dir, dir)
				p.Close()
				return
			}
			if err == nil {
				p.Close()
				t.Fatalf("pulled; want an error naming %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			t.Log(err)
			for _, d := range []string{opts.TempDir, parent} {
				if entries, _ := os.ReadDir(d); len(entries) != 0 {
					t.Errorf("the refused pull left %d entries in %s", len(entries), d)
				}
			}
			if proxy != nil && tc.limit < size {
				for _, p := range proxy.Paths() {
					if strings.Contains(p, "/blobs/"+layer.String()) {
						t.Errorf("the layer over the bound was requested: %s", p)
					}
				}
			}
		})
	}
}
