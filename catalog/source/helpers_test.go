package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph/catalog/declcfg"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/registry"
)

// sharedCatalog is the real FBC root the tests read.
const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

// entry is one tar entry: a regular file (Data), a directory (Name ends
// in "/"), or a link (Link set; Hard for a hard link).
type entry struct {
	Name string
	Data string
	Link string
	Hard bool
}

func file(name, data string) entry { return entry{Name: name, Data: data} }
func dir(name string) entry        { return entry{Name: name + "/"} }
func whiteout(name string) entry {
	d, base := filepath.Split(name)
	return entry{Name: d + whiteoutPrefix + base}
}
func opaque(dir string) entry { return entry{Name: dir + "/" + opaqueMarker} }

var epoch = time.Unix(0, 0).UTC()

// layer builds a gzipped tar layer of entries, in order, reproducibly.
func layer(t testing.TB, entries ...entry) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, ModTime: epoch, Mode: 0o644, Format: tar.FormatPAX}
		switch {
		case strings.HasSuffix(e.Name, "/"):
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case e.Link != "" && e.Hard:
			h.Typeflag, h.Linkname = tar.TypeLink, e.Link
		case e.Link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.Link
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, e.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.DockerLayer))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// dirLayer puts the files of a local directory at root in a layer.
func dirLayer(t testing.TB, local, root string) v1.Layer {
	t.Helper()
	entries := []entry{dir(root)}
	err := filepath.WalkDir(local, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == local {
			return err
		}
		rel, _ := filepath.Rel(local, p)
		name := root + "/" + filepath.ToSlash(rel)
		if d.IsDir() {
			entries = append(entries, dir(name))
			return nil
		}
		data, err := os.ReadFile(p)
		entries = append(entries, file(name, string(data)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return layer(t, entries...)
}

// labelled sets an image's labels.
func labelled(t testing.TB, img v1.Image, labels map[string]string) v1.Image {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg := cf.Config
	cfg.Labels = labels
	img, err = mutate.Config(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// catalogImage is a linux/arch image of layers labelled as an FBC image
// with its catalog in /configs.
func catalogImage(t testing.TB, arch string, layers ...v1.Layer) v1.Image {
	t.Helper()
	return labelled(t, rt.Image(t, arch, false, layers...), map[string]string{ConfigsLabel: "/configs"})
}

// opmBase stands in for the opm base image: binaries and a pogreb cache
// that must never be extracted.
func opmBase(t testing.TB) v1.Layer {
	return layer(t, dir("bin"), file("bin/opm", strings.Repeat("\x7fELF", 1024)), dir("etc"), file("etc/passwd", "root:x:0:0::/root:/bin/sh\n"))
}

func cacheLayer(t testing.TB) v1.Layer {
	return layer(t, dir("tmp"), dir("tmp/cache"), file("tmp/cache/digest", "0123"), file("tmp/cache/cache/packages.json", "{}"))
}

func newClient(t testing.TB) *registry.Client {
	t.Helper()
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// loadImage loads ref with the options given.
func loadImage(t testing.TB, ref string, opts Options) (*declcfg.DeclarativeConfig, Info, error) {
	t.Helper()
	if opts.Client == nil {
		opts.Client = newClient(t)
	}
	src, err := Parse("image:"+ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	return src.Load(context.Background())
}

// names lists the package, schema and name of each blob.
func names(cfg *declcfg.DeclarativeConfig) []string {
	var out []string
	for _, m := range cfg.Metas {
		out = append(out, m.Schema+" "+m.Package+" "+m.Name)
	}
	return out
}

// sameMetas reports the first difference between two catalogs' blobs.
func sameMetas(t testing.TB, what string, got, want *declcfg.DeclarativeConfig) {
	t.Helper()
	if len(got.Metas) != len(want.Metas) {
		t.Fatalf("%s: %d metas, want %d", what, len(got.Metas), len(want.Metas))
	}
	for i := range got.Metas {
		g, w := got.Metas[i], want.Metas[i]
		if g.Schema != w.Schema || g.Package != w.Package || g.Name != w.Name || !bytes.Equal(g.Blob, w.Blob) {
			t.Fatalf("%s: meta %d is %s %s %s (%d bytes), want %s %s %s (%d bytes)", what, i, g.Schema, g.Package, g.Name, len(g.Blob), w.Schema, w.Package, w.Name, len(w.Blob))
		}
	}
}

// treeFiles lists the regular files under root, relative and sorted.
func treeFiles(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
