package main

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/ocitree"
)

// TestEveryLocation puts one tree in each place a tree lives -- a
// directory, a bundle, a static HTTP host, the real S3 server and the real
// registry, an OCI layout -- and runs every command that reads a tree on each: verify,
// diff (against the directory: no difference), path, dot and mirror give
// the same output, the location's own name aside, and mirror writes the
// same files.
func TestEveryLocation(t *testing.T) {
	work := t.TempDir()
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	dir := filepath.Join(work, "tree")
	if _, stderr, code := run(t, work, env, "generate", "--demo", "--out", dir); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	file := filepath.Join(work, "tree.tar.gz")
	if _, err := bundle.Write(t.Context(), dir, file); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer web.Close()
	s3 := s3test.Start(t)
	bucket := s3.NewBucket(t)
	s3env := publishEnv(work, s3)
	s3flags := []string{"--endpoint", s3.URL, "--path-style", "--region", s3test.Region}
	if _, stderr, code := run(t, work, s3env, append(append([]string{"publish"}, s3flags...), dir, "s3://"+bucket+"/graphs")...); code != 0 {
		t.Fatalf("publish: %s", stderr)
	}
	reg := registrytest.Start(t)
	image := "oci://" + reg.Host + "/upgraph/tree:v1"
	if _, stderr, code := run(t, work, nil, "push", dir, image); code != 0 {
		t.Fatalf("push: %s", stderr)
	}

	layoutDir := filepath.Join(work, "layout")
	index, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse(index)
	if err != nil {
		t.Fatal(err)
	}
	img, err := ocitree.Image(file, m, index)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := layout.Write(layoutDir, empty.Index)
	if err == nil {
		err = lp.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": "v1"}))
	}
	if err != nil {
		t.Fatal(err)
	}

	locations := []struct {
		name, loc string
		flags     []string
	}{
		{"directory", dir, nil},
		{"bundle", file, nil},
		{"http", web.URL, nil},
		{"s3", "s3://" + bucket + "/graphs", s3flags},
		{"registry", image, nil},
		{"OCI layout", "oci-layout:" + layoutDir + ":v1", nil},
	}
	commands := []struct {
		name string
		args func(loc string) []string
		// out names the tree a command writes, compared file by file.
		out bool
	}{
		{"verify", func(loc string) []string { return []string{"verify", loc} }, false},
		{"diff", func(loc string) []string { return []string{"diff", dir, loc} }, false},
		{"path", func(loc string) []string {
			return []string{"path", "--source", loc, "--channel", "stable-4.16", "--from", "4.15.0", "--to", "4.16.1"}
		}, false},
		{"path-json", func(loc string) []string {
			return []string{"path", "--source", loc, "--channel", "stable-4.16", "--from", "4.15.0", "--to", "4.16.1", "--format", "json"}
		}, false},
		{"dot", func(loc string) []string {
			return []string{"dot", "--source", loc, "--channel", "stable-4.16", "--blocked"}
		}, false},
		{"mirror", func(loc string) []string {
			return []string{"mirror", "--from", loc, "--payload-mirror", "quay.io/openshift-release-dev=registry.local:5000/ocp"}
		}, true},
	}
	// verify names the kind of location it checked; the rest must match.
	kind := regexp.MustCompile(`^ok LOC \([^)]*\)`)
	for _, cmd := range commands {
		var want string
		var wantFiles map[string]string
		for i, l := range locations {
			args := append(cmd.args(l.loc)[:1:1], l.flags...)
			args = append(args, cmd.args(l.loc)[1:]...)
			out := filepath.Join(work, cmd.name+"-"+l.name)
			if cmd.out {
				args = append(args[:1:1], append([]string{"--out", out}, args[1:]...)...)
			}
			stdout, stderr, code := run(t, work, s3env, args...)
			if code != 0 {
				t.Errorf("%s on the %s: exit %d:\n%s", cmd.name, l.name, code, stderr)
				continue
			}
			got := kind.ReplaceAllString(strings.ReplaceAll(stdout, l.loc, "LOC"), "ok LOC (KIND)")
			got = strings.ReplaceAll(got, out, "OUT")
			if cmd.out {
				if _, stderr, code := run(t, work, nil, "verify", out); code != 0 {
					t.Errorf("%s from the %s: the tree written fails verify:\n%s", cmd.name, l.name, stderr)
				}
			}
			if i == 0 {
				if got == "" && cmd.name != "diff" {
					t.Errorf("%s printed nothing", cmd.name)
				}
				want = got
				if cmd.out {
					wantFiles = treeDigest(t, out)
				}
				continue
			}
			if got != want {
				t.Errorf("%s on the %s printed\n%s\nwant (as on the directory)\n%s", cmd.name, l.name, got, want)
			}
			if cmd.out {
				if files := treeDigest(t, out); !maps.Equal(files, wantFiles) {
					t.Errorf("%s from the %s wrote %d files that differ from the directory's %d", cmd.name, l.name, len(files), len(wantFiles))
				}
			}
		}
	}
}
