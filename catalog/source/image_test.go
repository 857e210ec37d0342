package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/upgraph/upgraph/catalog/declcfg"
	rt "github.com/upgraph/upgraph/internal/registrytest"
)

// Package fixtures: a in YAML, b and c as JSON streams.
const (
	pkgA = `schema: olm.package
name: a
defaultChannel: stable
---
schema: olm.channel
package: a
name: stable
entries:
- name: a.v1.0.0
---
schema: olm.bundle
package: a
name: a.v1.0.0
image: quay.io/example/a-bundle:v1.0.0
properties:
- type: olm.package
  value: {packageName: a, version: 1.0.0}
`
	pkgA2 = `schema: olm.package
name: a
defaultChannel: fast
`
	pkgB = `{"schema":"olm.package","name":"b","defaultChannel":"stable"}
{"schema":"olm.channel","package":"b","name":"stable","entries":[{"name":"b.v2.0.0"}]}
`
	pkgC = `{"schema":"olm.package","name":"c","defaultChannel":"stable"}
`
)

var (
	namesA  = []string{"olm.package  a", "olm.channel a stable", "olm.bundle a a.v1.0.0"}
	namesB  = []string{"olm.package  b", "olm.channel b stable"}
	namesC  = []string{"olm.package  c"}
	namesAB = slices.Concat(namesA, namesB)
)

func configsAB(t testing.TB) []entry {
	return []entry{dir("configs"), dir("configs/a"), file("configs/a/catalog.yaml", pkgA), dir("configs/b"), file("configs/b/catalog.json", pkgB)}
}

// TestImage reads a plain catalog image (opm base, configs, cache
// layers) from the registry, then again from the cache without
// downloading a layer, by tag and by digest.
func TestImage(t *testing.T) {
	reg := rt.Start(t)
	px := rt.NewProxy(t, reg.Host)
	img := catalogImage(t, "amd64", opmBase(t), layer(t, configsAB(t)...), cacheLayer(t))
	digest := rt.Push(t, reg.Host+"/catalogs/plain:v4.21", img)
	cacheDir := t.TempDir()

	cfg, info, err := loadImage(t, px.Host+"/catalogs/plain:v4.21", Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(cfg); !slices.Equal(got, namesAB) {
		t.Errorf("blobs = %q, want %q", got, namesAB)
	}
	want := Info{
		Kind:       KindImage,
		Reference:  px.Host + "/catalogs/plain:v4.21",
		Resolved:   px.Host + "/catalogs/plain@" + digest,
		Digest:     digest,
		Platform:   "linux/amd64",
		ConfigsDir: "/configs",
	}
	if fmt.Sprint(info) != fmt.Sprint(want) {
		t.Errorf("info = %+v\nwant %+v", info, want)
	}
	if got := cfg.Metas[3].Pos; got.File != "b/catalog.json" || got.Line != 1 {
		t.Errorf("position of b = %+v, want relative to /configs", got)
	}
	// Only the catalog's files were kept: no binary, no opm cache; the
	// load pruned the cache (its marker).
	hex := strings.TrimPrefix(digest, "sha256:")
	wantFiles := []string{"v1/.last-pruned", "v1/sha256/" + hex + "/configs/a/catalog.yaml", "v1/sha256/" + hex + "/configs/b/catalog.json", "v1/sha256/" + hex + "/entry.json"}
	got := slices.DeleteFunc(treeFiles(t, cacheDir), func(p string) bool { return !strings.HasPrefix(p, "v1/") }) // the decoded files aside
	if !slices.Equal(got, wantFiles) {
		t.Errorf("cache holds %q, want %q", got, wantFiles)
	}

	for _, ref := range []string{px.Host + "/catalogs/plain:v4.21", px.Host + "/catalogs/plain@" + digest} {
		px.Reset()
		again, info, err := loadImage(t, ref, Options{CacheDir: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		if !info.Cached || info.Digest != digest || info.ConfigsDir != "/configs" || info.Platform != "linux/amd64" {
			t.Errorf("%s: info = %+v, want cached %s", ref, info, digest)
		}
		if c := px.Counts(); c.BlobGETs != 0 {
			t.Errorf("%s: cached load fetched %d blobs: %q", ref, c.BlobGETs, px.Paths())
		}
		sameMetas(t, "cached "+ref, again, cfg)
	}

	// Without a cache the catalog is extracted to a temporary directory.
	px.Reset()
	nocache, info, err := loadImage(t, px.Host+"/catalogs/plain:v4.21", Options{})
	if err != nil || info.Cached {
		t.Fatalf("without a cache: %+v, %v", info, err)
	}
	sameMetas(t, "uncached", nocache, cfg)
	if c := px.Counts(); c.BlobGETs != 4 { // config + 3 layers
		t.Errorf("uncached load fetched %d blobs, want the config and 3 layers: %q", c.BlobGETs, px.Paths())
	}

	// A damaged cache entry is rebuilt.
	if err := os.Remove(filepath.Join(cacheDir, "v1/sha256", hex, "configs/b/catalog.json")); err != nil {
		t.Fatal(err)
	}
	rebuilt, info, err := loadImage(t, px.Host+"/catalogs/plain:v4.21", Options{CacheDir: cacheDir})
	if err != nil || info.Cached {
		t.Fatalf("damaged cache entry: %+v, %v", info, err)
	}
	sameMetas(t, "rebuilt", rebuilt, cfg)
}

// TestImageIndex resolves a multi-platform index to one image and
// records the choice.
func TestImageIndex(t *testing.T) {
	reg := rt.Start(t)
	amd := catalogImage(t, "amd64", layer(t, dir("configs"), file("configs/a.yaml", pkgA)))
	arm := catalogImage(t, "arm64", layer(t, configsAB(t)...))
	idx := rt.Index(t, false, amd, arm)
	idxDigest := rt.Push(t, reg.Host+"/catalogs/multi:v1", idx)
	ref := reg.Host + "/catalogs/multi:v1"

	tests := []struct {
		platform   string
		wantNames  []string
		wantDigest string
		wantPlat   string
		err        string
	}{
		{"", namesA, rt.Digest(t, amd), "linux/amd64", ""},
		{"linux/amd64", namesA, rt.Digest(t, amd), "linux/amd64", ""},
		{"linux/arm64", namesAB, rt.Digest(t, arm), "linux/arm64", ""},
		{"linux/s390x", nil, "", "", "has no linux/s390x image (it has linux/amd64, linux/arm64)"},
	}
	for _, tt := range tests {
		t.Run("platform="+tt.platform, func(t *testing.T) {
			cfg, info, err := loadImage(t, ref, Options{Platform: tt.platform, CacheDir: t.TempDir()})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(cfg); !slices.Equal(got, tt.wantNames) {
				t.Errorf("blobs = %q, want %q", got, tt.wantNames)
			}
			if info.IndexDigest != idxDigest || info.Digest != tt.wantDigest || info.Platform != tt.wantPlat ||
				info.Resolved != reg.Host+"/catalogs/multi@"+idxDigest || !slices.Equal(info.Platforms, []string{"linux/amd64", "linux/arm64"}) {
				t.Errorf("info = %+v", info)
			}
		})
	}
	if _, err := Parse("image:"+ref, Options{Client: newClient(t), Platform: "linux"}); err == nil {
		t.Error("platform linux (no architecture) accepted")
	}
}

// TestImageLayers: the catalog is the configs directory as the layers
// stack up: later files replace earlier ones, whiteouts and opaque
// directories delete, as oc-mirror's rebuilt catalogs rely on; links are
// copied, but only from inside the catalog.
func TestImageLayers(t *testing.T) {
	reg := rt.Start(t)
	px := rt.NewProxy(t, reg.Host)
	old := func() []entry { return configsAB(t) }
	_ = old
	tests := []struct {
		name   string
		layers [][]entry
		want   []string
		err    string
		// blobs is how many blobs (config and layers) the load may fetch.
		blobs int
	}{
		{
			name: "oc-mirror rebuild: a .wh.configs layer under a new configs layer",
			layers: [][]entry{
				{dir("bin"), file("bin/opm", strings.Repeat("x", 64<<10))},
				old(),
				{dir("tmp"), file("tmp/cache/x", "cache")},
				{whiteout("configs")},
				{dir("configs"), file("configs/index.json", pkgC)},
			},
			want:  namesC,
			blobs: 3, // config and the two top layers: nothing below the whiteout
		},
		{
			name:   "whiteout and new content in one layer",
			layers: [][]entry{old(), {whiteout("configs"), dir("configs"), file("configs/c.json", pkgC)}},
			want:   namesC,
			blobs:  2,
		},
		{
			name:   "opaque directory",
			layers: [][]entry{old(), {dir("configs"), file("configs/c/catalog.json", pkgC), opaque("configs")}},
			want:   namesC,
			blobs:  2,
		},
		{
			name:   "opaque root",
			layers: [][]entry{old(), {entry{Name: opaqueMarker}, dir("configs"), file("configs/c.json", pkgC)}},
			want:   namesC,
			blobs:  2,
		},
		{
			name:   "opaque package directory",
			layers: [][]entry{old(), {opaque("configs/a"), file("configs/a/new.json", pkgC)}},
			want:   slices.Concat(namesC, namesB),
			blobs:  3,
		},
		{
			name:   "file whiteout",
			layers: [][]entry{old(), {whiteout("configs/b/catalog.json")}},
			want:   namesA,
			blobs:  3,
		},
		{
			name:   "package directory whiteout",
			layers: [][]entry{old(), {whiteout("configs/a")}, {file("configs/d/catalog.json", pkgC)}},
			want:   slices.Concat(namesB, namesC),
			blobs:  4,
		},
		{
			name:   "a later layer replaces a file",
			layers: [][]entry{old(), {file("configs/a/catalog.yaml", pkgA2)}},
			want:   slices.Concat([]string{"olm.package  a"}, namesB),
			blobs:  3,
		},
		{
			name:   "a later directory replaces a file",
			layers: [][]entry{{file("configs/a", "not a catalog")}, {file("configs/a/catalog.yaml", pkgA)}},
			want:   namesA,
			blobs:  3,
		},
		{
			name:   "a later file replaces a directory",
			layers: [][]entry{old(), {file("configs/a", pkgC)}},
			want:   slices.Concat(namesC, namesB),
			blobs:  3,
		},
		{
			name:   "links inside the catalog are copied",
			layers: [][]entry{{file("configs/real/c.json", pkgC), {Name: "configs/c.json", Link: "real/c.json"}, {Name: "configs/x/c.json", Link: "/configs/c.json"}, {Name: "configs/hard.json", Link: "configs/real/c.json", Hard: true}}},
			want:   slices.Concat(namesC, namesC, namesC, namesC),
			blobs:  2,
		},
		{
			name:   "a link out of the catalog",
			layers: [][]entry{{file("etc/secret", pkgC), {Name: "configs/c.json", Link: "../etc/secret"}}},
			err:    "link to /etc/secret, outside the catalog directory /configs",
		},
		{
			name:   "the whole directory deleted",
			layers: [][]entry{old(), {whiteout("configs")}},
			err:    "label operators.operatorframework.io.index.configs.v1=/configs names a directory the image does not have",
		},
		{
			name:   "a file where the directory should be",
			layers: [][]entry{old(), {whiteout("configs"), file("configs", "x")}},
			err:    "label operators.operatorframework.io.index.configs.v1=/configs names a regular file, not a directory",
		},
		{
			name:   "a link where the directory should be",
			layers: [][]entry{{file("real/c.json", pkgC), {Name: "configs", Link: "real"}}},
			err:    "label operators.operatorframework.io.index.configs.v1=/configs names a symbolic link to real, not a directory",
		},
		{
			name:   "malformed catalog file",
			layers: [][]entry{{file("configs/a.json", `{"schema":"olm.package",`)}},
			err:    "/configs of sha256:",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var layers []v1.Layer
			for _, l := range tt.layers {
				layers = append(layers, layer(t, l...))
			}
			img := catalogImage(t, "amd64", layers...)
			repo := fmt.Sprintf("/layers/case%d:latest", i)
			rt.Push(t, reg.Host+repo, img)
			px.Reset()
			cfg, _, err := loadImage(t, px.Host+repo, Options{CacheDir: t.TempDir()})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(cfg); !slices.Equal(got, tt.want) {
				t.Errorf("blobs = %q\nwant %q", got, tt.want)
			}
			if c := px.Counts(); c.BlobGETs != tt.blobs {
				t.Errorf("fetched %d blobs, want %d: %q", c.BlobGETs, tt.blobs, px.Paths())
			}
		})
	}
}

// TestImageRefused: images that are not file-based catalogs are refused,
// saying which label is missing, as opm does.
func TestImageRefused(t *testing.T) {
	reg := rt.Start(t)
	db := layer(t, dir("database"), file("database/index.db", "SQLite format 3\x00"))
	tests := []struct {
		name   string
		labels map[string]string
		err    string
	}{
		{"sqlite only", map[string]string{DatabaseLabel: "/database/index.db"},
			"sqlite-based index images are no longer supported, migrate to a file-based catalog: the image has label operators.operatorframework.io.index.database.v1=/database/index.db but no operators.operatorframework.io.index.configs.v1"},
		{"no label", nil, "not a file-based catalog image: label operators.operatorframework.io.index.configs.v1 is missing (it has no labels)"},
		{"other labels", map[string]string{"vendor": "x", "version": "1"}, "label operators.operatorframework.io.index.configs.v1 is missing (its labels: vendor, version)"},
		{"bundle", map[string]string{BundlePackageLabel: "a"}, "an operator bundle image (label operators.operatorframework.io.bundle.package.v1=a), not a catalog"},
		{"root directory", map[string]string{ConfigsLabel: "/"}, `label operators.operatorframework.io.index.configs.v1="/" does not name a directory below the image root`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := labelled(t, rt.Image(t, "amd64", false, opmBase(t), db), tt.labels)
			ref := fmt.Sprintf("%s/refused/case%d:v1", reg.Host, i)
			rt.Push(t, ref, img)
			_, _, err := loadImage(t, ref, Options{CacheDir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), ref) {
				t.Errorf("error = %v\nwant %q (naming %s)", err, tt.err, ref)
			}
		})
	}
	if _, _, err := loadImage(t, reg.Host+"/refused/missing:v1", Options{}); err == nil || !strings.Contains(err.Error(), "refused/missing:v1") {
		t.Errorf("missing image: %v", err)
	}
}

// TestSameCatalogEverywhere: the shared catalog from an image, its
// directory, a single YAML file and a single JSON stream gives the same
// blobs, byte for byte (and, image and directory, the same positions).
func TestSameCatalogEverywhere(t *testing.T) {
	ctx := context.Background()
	dirCfg, info, err := (&Dir{Path: sharedCatalog}).Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != KindDir || info.Reference != sharedCatalog {
		t.Errorf("dir info = %+v", info)
	}

	reg := rt.Start(t)
	img := catalogImage(t, "amd64", opmBase(t), dirLayer(t, sharedCatalog, "configs"), cacheLayer(t))
	rt.Push(t, reg.Host+"/redhat/community-operator-index:v4.21", img)
	imgCfg, _, err := loadImage(t, reg.Host+"/redhat/community-operator-index:v4.21", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sameMetas(t, "image", imgCfg, dirCfg)
	for i := range imgCfg.Metas {
		if imgCfg.Metas[i].Pos != dirCfg.Metas[i].Pos {
			t.Fatalf("image meta %d at %+v, directory's at %+v", i, imgCfg.Metas[i].Pos, dirCfg.Metas[i].Pos)
		}
	}

	// One YAML file: the package files joined by document markers.
	var yamlDocs, jsonLines []byte
	for _, f := range treeFiles(t, sharedCatalog) {
		data, err := os.ReadFile(filepath.Join(sharedCatalog, f))
		if err != nil {
			t.Fatal(err)
		}
		// A marker before a file that starts with one would make an
		// empty document, which operator-registry refuses.
		if !strings.HasPrefix(string(data), "---") {
			yamlDocs = append(yamlDocs, "---\n"...)
		}
		yamlDocs = append(yamlDocs, data...)
	}
	for _, m := range dirCfg.Metas {
		jsonLines = append(append(jsonLines, m.Blob...), '\n')
	}
	tmp := t.TempDir()
	for name, data := range map[string][]byte{"catalog.yaml": yamlDocs, "catalog.json": jsonLines} {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Parse(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := src.(*File); !ok {
			t.Fatalf("Parse(%s) = %T, want a file source", p, src)
		}
		fileCfg, info, err := src.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.Kind != KindFile || fileCfg.Metas[0].Pos.File != name {
			t.Errorf("%s: info %+v, first position %+v", name, info, fileCfg.Metas[0].Pos)
		}
		sameMetas(t, name, fileCfg, dirCfg)
	}
}

// TestDirAndFile: the local sources' errors name the source and, for
// catalog errors, the file and line.
func TestDirAndFile(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	bad := filepath.Join(root, "bad")
	if err := os.MkdirAll(filepath.Join(bad, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "p", "catalog.yaml"), []byte("schema: olm.package\nname: p\n---\nschema: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src Source
		err string
	}{
		{&Dir{Path: bad}, "catalog dir:" + bad + ": p/catalog.yaml:4: invalid YAML"},
		{&File{Path: filepath.Join(bad, "p", "catalog.yaml")}, "catalog.yaml:4: invalid YAML"},
		{&Dir{Path: filepath.Join(bad, "p", "catalog.yaml")}, "is not a directory (use file:"},
		{&File{Path: bad}, "is a directory (use dir:"},
		{&Dir{Path: filepath.Join(root, "missing")}, "no such file or directory"},
		{&File{Path: filepath.Join(root, "missing.json")}, "no such file or directory"},
	}
	for _, tt := range tests {
		_, _, err := tt.src.Load(ctx)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.src, err, tt.err)
		}
		var le *declcfg.Error
		if strings.Contains(tt.err, "invalid YAML") && !errors.As(err, &le) {
			t.Errorf("%s: %v is not a *declcfg.Error", tt.src, err)
		}
	}
}
