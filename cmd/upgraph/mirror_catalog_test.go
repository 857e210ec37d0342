package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMirrorCatalog mirrors a tree holding the demo releases and the
// shared catalog: all of it with payload mirrors, then one package of it;
// upgraph verify passes on both, and the catalog's images point at the
// mirror.
func TestMirrorCatalog(t *testing.T) {
	shared, err := filepath.Abs("../../../shared/catalogs/community-operators-prod-v4.21/configs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared catalog not available: %v", err)
	}
	work := t.TempDir()
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	if _, stderr, code := run(t, work, env, "generate", "--demo", "--catalog", "community="+shared, "--out", "src"); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	mirrors := []string{"--payload-mirror=quay.io=registry.local:5000/quay", "--payload-mirror=gcr.io=registry.local:5000/gcr",
		"--payload-mirror=registry.istio.io=registry.local:5000/istio"}
	args := append([]string{"mirror", "--from", "src", "--out", "all"}, mirrors...)
	stdout, stderr, code := run(t, work, env, args...)
	if code != 0 {
		t.Fatalf("mirror: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "catalog community: 33 packages, 78 channels, 745 bundles") {
		t.Errorf("mirror said %q", stdout)
	}
	all, err := os.ReadFile(filepath.Join(work, "all", "operators", "community", "all.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Bundle images and related images are rewritten; other mentions of
	// images (a CSV's containerImage annotation) are the catalog's text.
	rewritten := 0
	for line := range strings.Lines(string(all)) {
		var b struct {
			Schema, Image string
			RelatedImages []struct{ Image string }
		}
		if err := json.Unmarshal([]byte(line), &b); err != nil {
			t.Fatal(err)
		}
		images := []string{b.Image}
		for _, r := range b.RelatedImages {
			images = append(images, r.Image)
		}
		for _, img := range images {
			for _, from := range []string{"quay.io/", "gcr.io/", "registry.istio.io/"} {
				if strings.HasPrefix(img, from) {
					t.Errorf("bundle image %s not rewritten", img)
				}
			}
			if strings.HasPrefix(img, "registry.local:5000/") {
				rewritten++
			}
		}
	}
	if rewritten == 0 || !strings.Contains(stdout, fmt.Sprintf("%d images rewritten", rewritten)) {
		t.Errorf("%d images point at the mirror; mirror said %q", rewritten, stdout)
	}
	args = append([]string{"mirror", "--from", "src", "--bundle", "one.tar.gz", "--catalog", "community", "--package", "slurm-operator"}, mirrors...)
	if stdout, stderr, code = run(t, work, env, args...); code != 0 {
		t.Fatalf("mirror --package: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "catalog community: 1 package, 2 channels, 6 bundles,") { // as docs/operators.md shows
		t.Errorf("mirror --package said %q", stdout)
	}
	for _, loc := range []string{"all", "one.tar.gz"} {
		if _, stderr, code := run(t, work, nil, "verify", loc); code != 0 {
			t.Errorf("verify %s: exit %d\n%s", loc, code, stderr)
		}
	}
	if _, stderr, code := run(t, work, nil, "mirror", "--from", "src", "--out", "x", "--package", "no-such-package"); code == 0 || !strings.Contains(stderr, "--package no-such-package") {
		t.Errorf("unknown package: exit %d\n%s", code, stderr)
	}
}
