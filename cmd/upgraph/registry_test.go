package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/internal/bundletest"
	rt "github.com/upgraph/upgraph/internal/registrytest"
)

// pushDemo pushes the demo releases as release images to repo and writes,
// into dir, the metadata: documents equivalent to them (payloads pinned to
// the pushed digests). It returns the tag of each version.
func pushDemo(t *testing.T, repo, dir string) map[string]string {
	t.Helper()
	tags, _ := pushDemoExcept(t, repo, dir, "")
	return tags
}

// pushDemoExcept is pushDemo holding back the release named held
// (VERSION+ARCH): its document and tag are written and returned as the
// others', its image returned rather than pushed.
func pushDemoExcept(t *testing.T, repo, dir, held string) (map[string]string, rt.Artifact) {
	t.Helper()
	var heldImage rt.Artifact
	base := rt.FillerLayer(t, 1, 2048, false)
	tags := map[string]string{}
	err := fs.WalkDir(upgraph.DemoReleases(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(upgraph.DemoReleases(), p)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			return err
		}
		arch := doc["arch"].(string)
		delete(doc, "arch")
		delete(doc, "payload")
		tag := strings.ReplaceAll(doc["version"].(string), "+", "_") + "-" + arch
		img := rt.Image(t, arch, arch == "arm64", base, rt.MetadataLayer(t, doc))
		var digest string
		if doc["version"].(string)+"+"+arch == held {
			heldImage, digest = img, rt.Digest(t, img)
		} else {
			digest = rt.Push(t, repo+":"+tag, img)
		}
		doc["arch"], doc["payload"] = arch, repo+"@"+digest
		out, _ := json.Marshal(doc)
		tags[doc["version"].(string)+"+"+arch] = tag
		return os.WriteFile(filepath.Join(dir, strings.TrimSuffix(p, ".json")+".json"), out, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return tags, heldImage
}

// pushGraphData pushes the demo graph-data as a single-layer image.
func pushGraphData(t *testing.T, ref string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	fsys := upgraph.DemoGraphData()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		tw.WriteHeader(&tar.Header{Name: "graph-data/" + p, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tw.Close()
	var layer v1.Layer = static.NewLayer(buf.Bytes(), types.DockerUncompressedLayer)
	rt.Push(t, ref, rt.Image(t, "amd64", false, layer))
}

// TestGenerateFromRegistry runs the CLI on a real registry (releases and a
// graph-data image) and compares the tree with the one generated from the
// equivalent metadata documents and graph-data directory.
func TestGenerateFromRegistry(t *testing.T) {
	reg := rt.Start(t)
	proxy := rt.NewProxy(t, reg.Host)
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	os.Mkdir(docs, 0o755)
	repo := reg.Host + "/ocp/release"
	tags := pushDemo(t, repo, docs)
	pushGraphData(t, reg.Host+"/ocp/graph-data:latest")
	gdDir := filepath.Join(work, "graph-data")
	bundletest.CopyTree(t, "../../testdata/demo/graph-data", gdDir)
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	cache := filepath.Join(work, "cache")

	_, stderr, code := run(t, work, env, "generate", "--releases", "registry:"+repo, "--payload-repo", repo,
		"--graph-data", "image:"+reg.Host+"/ocp/graph-data:latest", "--cache", cache, "--out", "scraped")
	if code != 0 {
		t.Fatalf("generate from the registry: exit %d\n%s", code, stderr)
	}
	_, stderr, code = run(t, work, env, "generate", "--releases", "metadata:docs", "--graph-data", "graph-data", "--out", "documents")
	if code != 0 {
		t.Fatalf("generate from documents: exit %d\n%s", code, stderr)
	}
	scraped, documents := treeDigest(t, filepath.Join(work, "scraped")), treeDigest(t, filepath.Join(work, "documents"))
	delete(scraped, "index.json")
	delete(documents, "index.json")
	if !maps.Equal(scraped, documents) {
		t.Errorf("registry tree differs from the documents tree: %d vs %d files", len(scraped), len(documents))
	}
	index := func(dir string) string {
		data, err := os.ReadFile(filepath.Join(work, dir, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got, want := index("scraped"), strings.Replace(index("documents"), `"kind":"metadata"`, `"kind":"registry"`, 1); got != want {
		t.Errorf("index.json differs beyond the source kind:\n%s\n%s", got, want)
	}

	// A tag that keeps failing fails the run, names the tag and leaves the
	// published tree alone; --skip-broken publishes without it and says so.
	broken := tags["4.16.2+arm64"]
	if _, err := os.Stat(filepath.Join(work, "scraped/graph/arm64/candidate-4.16/4.16.2.json")); err != nil {
		t.Fatalf("the release about to break is not in the tree to begin with: %v", err)
	}
	proxy.Inject(rt.Fault{Kind: rt.Status, Code: 500, Path: "/manifests/" + broken + "$"})
	before := treeDigest(t, filepath.Join(work, "scraped"))
	args := []string{"generate", "--releases", "registry:" + proxy.Host + "/ocp/release", "--payload-repo", repo,
		"--graph-data", "graph-data", "--no-cache", "--out", "scraped"}
	_, stderr, code = run(t, work, env, args...)
	if code == 0 || !strings.Contains(stderr, broken) || !strings.Contains(stderr, "--skip-broken") {
		t.Fatalf("broken tag: exit %d, stderr:\n%s\nwant a failure naming %s", code, stderr, broken)
	}
	if !maps.Equal(before, treeDigest(t, filepath.Join(work, "scraped"))) {
		t.Error("a failed scrape changed the published tree")
	}
	_, stderr, code = run(t, work, env, append(args, "--skip-broken")...)
	if code != 0 || !strings.Contains(stderr, "tag skipped") || !strings.Contains(stderr, broken) {
		t.Fatalf("--skip-broken: exit %d, stderr:\n%s\nwant success with %s listed", code, stderr, broken)
	}
	if _, err := os.Stat(filepath.Join(work, "scraped/graph/arm64/candidate-4.16/4.16.2.json")); err == nil {
		t.Error("--skip-broken: the skipped release still has a per-version file")
	}
}
