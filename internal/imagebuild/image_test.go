package imagebuild

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// TestReproducible: building again from the same tree and metadata (the
// go command compiling again, from its cache) gives the same index
// digest, and the two OCI layouts are byte for byte the same; writing a
// layout over an existing one swaps it in and leaves nothing beside it.
func TestReproducible(t *testing.T) {
	idx1, meta := sharedImage(t)
	start := time.Now()
	idx2, err := Build(context.Background(), Options{Binary: GoBuild{Dir: srcDir, Version: meta.Version}.Binary, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second build (warm go build cache) took %s", time.Since(start).Round(time.Second))
	d1, err := idx1.Digest()
	if err != nil {
		t.Fatal(err)
	}
	d2, err := idx2.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 {
		t.Fatalf("index digests differ: %s, then %s", d1, d2)
	}

	out := t.TempDir()
	a, b := filepath.Join(out, "a"), filepath.Join(out, "b")
	for dir, idx := range map[string]v1.ImageIndex{a: idx1, b: idx2} {
		if err := WriteLayout(context.Background(), dir, idx, meta.Version); err != nil {
			t.Fatal(err)
		}
	}
	la, lb := readTree(t, a), readTree(t, b)
	if !maps.Equal(la, lb) {
		t.Errorf("layouts differ: %v vs %v", slices.Sorted(maps.Keys(la)), slices.Sorted(maps.Keys(lb)))
	}
	// 4 × (layer, config, manifest) + the index, oci-layout, index.json.
	if len(la) != 4*3+3 {
		t.Errorf("layout has %d files, want 15: %v", len(la), slices.Sorted(maps.Keys(la)))
	}

	// Replacing: a stale file of the old layout disappears with it.
	if err := os.WriteFile(filepath.Join(a, "stale"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(context.Background(), a, idx2, meta.Version); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, a); !maps.Equal(got, lb) {
		t.Errorf("the replaced layout differs from a fresh one: %v", slices.Sorted(maps.Keys(got)))
	}
	if ents, _ := os.ReadDir(out); len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("beside the layouts: %v, want only a and b", names)
	}

	// The layout is what other tools read: tagged with the version, and
	// the tagged index is ours.
	p, err := layout.FromPath(a)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Digest != d1 || im.Manifests[0].Annotations[refNameAnnotation] != meta.Version {
		t.Errorf("index.json lists %+v, want %s tagged %s", im.Manifests, d1, meta.Version)
	}
}

// TestIndexAndConfig: the index is an OCI index of exactly the four
// platforms' OCI manifests, annotated with the labels; each config names
// its architecture, runs as the numeric non-root user, and carries the
// entrypoint, environment, port and labels the image promises.
func TestIndexAndConfig(t *testing.T) {
	idx, meta := sharedImage(t)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s", im.MediaType)
	}
	var got []string
	for _, d := range im.Manifests {
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("%s: media type %s, want an OCI manifest", d.Digest, d.MediaType)
		}
		if d.Platform == nil {
			t.Fatalf("%s: no platform", d.Digest)
		}
		got = append(got, d.Platform.String())
	}
	if want := platformNames(); !slices.Equal(got, want) {
		t.Fatalf("platforms %v, want %v", got, want)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.source":   DefaultSource,
		"org.opencontainers.image.revision": meta.Revision,
		"org.opencontainers.image.version":  meta.Version,
		"org.opencontainers.image.created":  meta.Created.Format(time.RFC3339),
		"org.opencontainers.image.title":    DefaultTitle,
	}
	checkLabels := func(what string, got map[string]string) {
		t.Helper()
		for k, v := range wantLabels {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", what, k, got[k], v)
			}
		}
		if got["org.opencontainers.image.description"] == "" {
			t.Errorf("%s: no description", what)
		}
		// The repository has no license file, so no licenses label.
		if l, ok := got["org.opencontainers.image.licenses"]; ok {
			t.Errorf("%s: licenses %q without a license file", what, l)
		}
	}
	checkLabels("index annotations", im.Annotations)

	for plat, img := range platformImages(t, idx) {
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		arch := strings.TrimPrefix(plat, "linux/")
		if cf.OS != "linux" || cf.Architecture != arch {
			t.Errorf("%s: config says %s/%s", plat, cf.OS, cf.Architecture)
		}
		if !cf.Created.Time.Equal(meta.Created) {
			t.Errorf("%s: created %s, want %s", plat, cf.Created.Time, meta.Created)
		}
		c := cf.Config
		var uid, gid int
		if _, err := fmt.Sscanf(c.User, "%d:%d", &uid, &gid); err != nil || c.User != fmt.Sprintf("%d:%d", uid, gid) {
			t.Errorf("%s: user %q is not numeric uid:gid", plat, c.User)
		} else if uid == 0 || gid == 0 || uid != 65532 || gid != 65532 {
			t.Errorf("%s: user %q, want 65532:65532", plat, c.User)
		}
		if !slices.Equal(c.Entrypoint, []string{"/usr/bin/upgraph"}) || !slices.Equal(c.Cmd, []string{"--help"}) {
			t.Errorf("%s: entrypoint %q, cmd %q", plat, c.Entrypoint, c.Cmd)
		}
		if c.WorkingDir != "/var/lib/upgraph" || !slices.Contains(c.Env, "HOME=/var/lib/upgraph") ||
			!slices.ContainsFunc(c.Env, func(e string) bool { return strings.HasPrefix(e, "PATH=") }) {
			t.Errorf("%s: workdir %q, env %q", plat, c.WorkingDir, c.Env)
		}
		if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
			t.Errorf("%s: exposed ports %v", plat, c.ExposedPorts)
		}
		checkLabels(plat+" labels", c.Labels)
		mt, err := img.MediaType()
		if err != nil || mt != types.OCIManifestSchema1 {
			t.Errorf("%s: manifest media type %s (%v)", plat, mt, err)
		}
		m, err := img.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
			t.Errorf("%s: config %s, layers %+v", plat, m.Config.MediaType, m.Layers)
		}
	}
}

// TestLayerContents: each layer is exactly the promised filesystem, with
// fixed, root- or 65532-owned, nameless, commit-time headers in order and
// a gzip header without a timestamp; its /usr/bin/upgraph is a static
// ELF executable for the platform's machine and byte order, built
// without cgo, trimmed paths, with the version and the fallback roots.
func TestLayerContents(t *testing.T) {
	idx, meta := sharedImage(t)
	machines := map[string]struct {
		machine elf.Machine
		order   binary.ByteOrder
	}{
		"linux/amd64":   {elf.EM_X86_64, binary.LittleEndian},
		"linux/arm64":   {elf.EM_AARCH64, binary.LittleEndian},
		"linux/ppc64le": {elf.EM_PPC64, binary.LittleEndian},
		"linux/s390x":   {elf.EM_S390, binary.BigEndian},
	}
	type want struct {
		typ      byte
		mode     int64
		uid, gid int
	}
	wantEntries := map[string]want{
		"etc/":             {tar.TypeDir, 0o755, 0, 0},
		"etc/group":        {tar.TypeReg, 0o644, 0, 0},
		"etc/passwd":       {tar.TypeReg, 0o644, 0, 0},
		"tmp/":             {tar.TypeDir, 0o1777, 0, 0},
		"usr/":             {tar.TypeDir, 0o755, 0, 0},
		"usr/bin/":         {tar.TypeDir, 0o755, 0, 0},
		"usr/bin/upgraph":  {tar.TypeReg, 0o755, 0, 0},
		"var/":             {tar.TypeDir, 0o755, 0, 0},
		"var/lib/":         {tar.TypeDir, 0o755, 0, 0},
		"var/lib/upgraph/": {tar.TypeDir, 0o755, 65532, 65532},
	}
	for plat, img := range platformImages(t, idx) {
		t.Run(strings.ReplaceAll(plat, "/", "-"), func(t *testing.T) {
			layers, err := img.Layers()
			if err != nil {
				t.Fatal(err)
			}
			rc, err := layers[0].Compressed()
			if err != nil {
				t.Fatal(err)
			}
			head := make([]byte, 10)
			_, err = rc.Read(head)
			rc.Close()
			// Magic, deflate, no flags (no name), MTIME 0, OS unknown.
			if err != nil || !bytes.Equal(head[:4], []byte{0x1f, 0x8b, 8, 0}) || !bytes.Equal(head[4:8], []byte{0, 0, 0, 0}) || head[9] != 255 {
				t.Errorf("gzip header % x (%v)", head, err)
			}
			size, _ := layers[0].Size()
			t.Logf("%s: compressed layer %d bytes", plat, size)

			files := layerFiles(t, img)
			var names []string
			var bin []byte
			for _, f := range files {
				h := f.hdr
				names = append(names, h.Name)
				w, ok := wantEntries[h.Name]
				if !ok {
					t.Errorf("unexpected entry %s", h.Name)
					continue
				}
				if h.Typeflag != w.typ || h.Mode != w.mode || h.Uid != w.uid || h.Gid != w.gid {
					t.Errorf("%s: type %c mode %o owner %d:%d, want %c %o %d:%d", h.Name, h.Typeflag, h.Mode, h.Uid, h.Gid, w.typ, w.mode, w.uid, w.gid)
				}
				if h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(meta.Created) || len(h.PAXRecords) != 0 || h.Format != tar.FormatUSTAR {
					t.Errorf("%s: uname %q gname %q mtime %s pax %v format %v", h.Name, h.Uname, h.Gname, h.ModTime, h.PAXRecords, h.Format)
				}
				switch h.Name {
				case "usr/bin/upgraph":
					bin = f.body
				case "etc/passwd":
					if !strings.Contains(string(f.body), "\nupgraph:x:65532:65532:") {
						t.Errorf("/etc/passwd:\n%s", f.body)
					}
				case "etc/group":
					if !strings.Contains(string(f.body), "\nupgraph:x:65532:") {
						t.Errorf("/etc/group:\n%s", f.body)
					}
				}
			}
			if want := slices.Sorted(maps.Keys(wantEntries)); !slices.Equal(names, want) {
				t.Errorf("entries %v, want %v (sorted)", names, want)
			}
			if bin == nil {
				t.Fatal("no /usr/bin/upgraph")
			}

			ef, err := elf.NewFile(bytes.NewReader(bin))
			if err != nil {
				t.Fatalf("/usr/bin/upgraph: %v", err)
			}
			m := machines[plat]
			if ef.Machine != m.machine || ef.ByteOrder != m.order || ef.Class != elf.ELFCLASS64 {
				t.Errorf("ELF machine %v, byte order %v, class %v; want %v, %v, 64-bit", ef.Machine, ef.ByteOrder, ef.Class, m.machine, m.order)
			}
			for _, prog := range ef.Progs {
				if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
					t.Errorf("program header %v: not statically linked", prog.Type)
				}
			}
			if libs, _ := ef.ImportedLibraries(); len(libs) != 0 {
				t.Errorf("needs shared libraries %v", libs)
			}

			bi, err := buildinfo.Read(bytes.NewReader(bin))
			if err != nil {
				t.Fatalf("build info: %v", err)
			}
			settings := map[string]string{}
			for _, s := range bi.Settings {
				settings[s.Key] = s.Value
			}
			arch := strings.TrimPrefix(plat, "linux/")
			// -trimpath keeps -ldflags out of the build info, so the
			// version is looked for as a string (TestRunsAsNonRoot runs
			// --version).
			if settings["CGO_ENABLED"] != "0" || settings["GOARCH"] != arch || settings["-trimpath"] != "true" || settings["vcs.revision"] != "" {
				t.Errorf("build settings %v", settings)
			}
			if !bytes.Contains(bin, []byte(meta.Version)) {
				t.Errorf("the binary does not contain its version %q", meta.Version)
			}
			if !slices.ContainsFunc(bi.Deps, func(d *debug.Module) bool { return d.Path == "golang.org/x/crypto/x509roots/fallback" }) {
				t.Error("the binary does not embed golang.org/x/crypto/x509roots/fallback: no TLS roots in the image")
			}
		})
	}
}
