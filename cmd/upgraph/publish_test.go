package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/internal/bundletest"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestPublishLocations: `publish SRC s3://…` of a tree with releases and a
// catalog, from a bundle, an image in
// the real registry, an OCI layout, a static HTTP host or another s3://
// prefix stores exactly the objects (keys, bytes, headers, metadata) that
// publishing the directory does, and publishing the image over the
// directory's objects uploads nothing. A graph endpoint or a missing SRC
// is refused naming it; a tree with a file that is not the one index.json
// lists is refused naming the file, and index.json is not published.
func TestPublishLocations(t *testing.T) {
	work := t.TempDir()
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	dir, file := filepath.Join(work, "tree"), filepath.Join(work, "tree.tar.gz")
	// With a catalog: its metas files of the same bytes are hard links
	// in the directory and the bundle, and objects of their own in S3.
	// A name longer than a file name component: its metas files are
	// split into directories (catalog/metas.Encode), carried everywhere.
	longName := strings.Repeat("Long", 60)
	fbc := smallCatalog(t, filepath.Join(work, "fbc"), []string{"alpha", "beta"},
		map[string]string{"zz/extra.yaml": "schema: example.custom\npackage: alpha\nname: " + longName + "\n"})
	if _, stderr, code := run(t, work, env, "generate", "--demo", "--catalog", "c=dir:"+fbc, "--out", dir); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	if _, err := bundle.Write(t.Context(), dir, file); err != nil {
		t.Fatal(err)
	}
	reg := rt.Start(t)
	image := "oci://" + reg.Host + "/upgraph/tree:v1"
	if _, stderr, code := run(t, work, nil, "push", dir, image); code != 0 {
		t.Fatalf("push: %s", stderr)
	}
	layoutDir := rt.WriteLayout(t, map[string]rt.Artifact{"v1": treeImage(t, dir, file)})
	web := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer web.Close()
	srv := s3test.Start(t)
	s3env := s3Env(work, srv)
	publish := func(src, bucket string) (string, string, int) {
		tmp := t.TempDir()
		stdout, stderr, code := run(t, work, append(s3env, "TMPDIR="+tmp), "publish", "--endpoint", srv.URL, "--path-style", "--region", s3test.Region,
			src, "s3://"+bucket+"/v1")
		emptyDir(t, tmp)
		return stdout, stderr, code
	}

	fromDir := srv.NewBucket(t)
	if _, stderr, code := publish(dir, fromDir); code != 0 {
		t.Fatalf("publish %s: %s", dir, stderr)
	}
	want := srv.Objects(t, fromDir, "")
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(m.Files)+1 {
		t.Fatalf("publishing the directory stored %d objects, want %d", len(want), len(m.Files)+1)
	}
	for _, key := range []string{"v1/operators/c/metas/name/alpha.v1.0.0.jsonl", "v1/operators/c/metas/package/beta/schema/olm.channel/stable.jsonl",
		"v1/operators/c/" + metas.PackageSchemaNameFile("alpha", "example.custom", longName)} {
		if o, ok := want[key]; !ok || !strings.HasPrefix(string(o.Body), `{"`) {
			t.Errorf("publishing the directory stored no %s", key)
		}
	}
	for _, src := range []string{file, image, "oci-layout:" + layoutDir + ":v1", web.URL, "s3://" + fromDir + "/v1"} {
		bucket := srv.NewBucket(t)
		if _, stderr, code := publish(src, bucket); code != 0 {
			t.Errorf("publish %s: exit %d:\n%s", src, code, stderr)
			continue
		}
		got := srv.Objects(t, bucket, "")
		if len(got) != len(want) {
			t.Errorf("publish %s: %d objects, want %d", src, len(got), len(want))
		}
		for key, w := range want {
			if g := got[key]; !reflect.DeepEqual(g, w) {
				t.Errorf("publish %s: %s is %d bytes %s %v, want %d bytes %s %v", src, key, len(g.Body), g.ContentType, g.Metadata, len(w.Body), w.ContentType, w.Metadata)
			}
		}
	}
	if stdout, stderr, code := publish(image, fromDir); code != 0 || !strings.Contains(stdout, "uploaded 0 objects") {
		t.Errorf("publish %s over the directory's objects: exit %d, %q:\n%s", image, code, stdout, stderr)
	}

	victim := manifest.GraphPath("amd64", "stable-4.16")
	altered := filepath.Join(work, "altered")
	bundletest.CopyTree(t, dir, altered)
	data, err := os.ReadFile(filepath.Join(altered, victim))
	if err != nil {
		t.Fatal(err)
	}
	data[0] ^= 0xff
	if err := os.WriteFile(filepath.Join(altered, victim), data, 0o644); err != nil {
		t.Fatal(err)
	}
	alteredWeb := httptest.NewServer(http.FileServer(http.Dir(altered)))
	defer alteredWeb.Close()
	for _, tc := range []struct{ src, want string }{
		{"http://127.0.0.1:1/api/upgrades_info/graph", "SRC http://127.0.0.1:1/api/upgrades_info/graph: a graph endpoint"},
		{filepath.Join(work, "missing"), filepath.Join(work, "missing") + ": no such file"},
		{alteredWeb.URL, victim},
		{altered, victim},
	} {
		bucket := srv.NewBucket(t)
		if _, stderr, code := publish(tc.src, bucket); code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("publish %s: exit %d, want 1 and an error containing %q:\n%s", tc.src, code, tc.want, stderr)
		}
		if _, ok := srv.Objects(t, bucket, "")["v1/"+manifest.FileName]; ok {
			t.Errorf("publish %s: index.json published", tc.src)
		}
	}
}
