package imagebuild

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// moduleDir is the repository root, where git runs.
const moduleDir = "../.."

var (
	// srcDir is a snapshot of moduleDir's files, where the go command
	// builds: others may edit the working tree while the suite runs, and
	// "the same tree gives the same image" needs the same tree. With
	// -trimpath the snapshot's binaries equal the working tree's.
	srcDir string
	// binDir holds the binaries the first build compiles, for the run.
	binDir string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "imagebuild-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srcDir, binDir = filepath.Join(dir, "src"), filepath.Join(dir, "bin")
	if err := snapshot(moduleDir, srcDir); err != nil {
		fmt.Fprintln(os.Stderr, "snapshot of the module:", err)
		return 1
	}
	return m.Run()
}

// snapshot copies the files git tracks or would track (not the ignored
// ones, such as out/) from dir to dst.
func snapshot(dir, dst string) error {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// built is the image every test inspects, compiled once per test binary
// run: cross-compiling four platforms takes minutes, and the suite is
// meant to do it at most twice per platform (here, and the second build
// of TestReproducible).
var built struct {
	once sync.Once
	meta Metadata
	// bins are the compiled binaries by platform, kept for Prebuilt.
	bins map[string]string
	idx  v1.ImageIndex
	took time.Duration
	err  error
}

func sharedImage(t *testing.T) (v1.ImageIndex, Metadata) {
	t.Helper()
	built.once.Do(func() {
		ctx := context.Background()
		built.meta, built.err = ResolveMetadata(ctx, moduleDir, Metadata{})
		if built.err != nil {
			return
		}
		var mu sync.Mutex
		built.bins = map[string]string{}
		compile := GoBuild{Dir: srcDir, Version: built.meta.Version}
		// Compile into binDir rather than Build's scratch directory, which
		// Build removes, so the binaries outlive this build.
		keep := func(ctx context.Context, p v1.Platform, _ string) (string, error) {
			dir := filepath.Join(binDir, p.Architecture)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", err
			}
			path, err := compile.Binary(ctx, p, dir)
			if err == nil {
				mu.Lock()
				built.bins[p.String()] = path
				mu.Unlock()
			}
			return path, err
		}
		start := time.Now()
		built.idx, built.err = Build(ctx, Options{Binary: keep, Meta: built.meta})
		built.took = time.Since(start)
	})
	if built.err != nil {
		t.Fatalf("building the image: %v", built.err)
	}
	t.Logf("shared image built in %s (version %s, revision %s)", built.took.Round(time.Second), built.meta.Version, built.meta.Revision)
	return built.idx, built.meta
}

// tarFile is one entry of a layer.
type tarFile struct {
	hdr  *tar.Header
	body []byte
}

// layerFiles reads img's single layer: its entries in order.
func layerFiles(t *testing.T, img v1.Image) []tarFile {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var files []tarFile
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatalf("reading the layer: %v", err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("reading %s: %v", hdr.Name, err)
		}
		files = append(files, tarFile{hdr, body})
	}
}

// platformImages returns the index's images by platform ("linux/amd64").
func platformImages(t *testing.T, idx v1.ImageIndex) map[string]v1.Image {
	t.Helper()
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	imgs := map[string]v1.Image{}
	for _, d := range im.Manifests {
		if d.Platform == nil {
			t.Fatalf("manifest %s has no platform", d.Digest)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		imgs[d.Platform.String()] = img
	}
	return imgs
}

// readTree returns every file under dir by slash path, with its bytes.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func platformNames() []string {
	var names []string
	for _, p := range DefaultPlatforms {
		names = append(names, p.String())
	}
	return names
}
