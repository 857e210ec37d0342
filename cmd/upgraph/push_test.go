package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/ocitree"
)

// TestPush runs upgraph push against a real registry: the same tree gives
// the same manifest digest under any tag and prints it; the manifest names
// the generation; a tree changed after generation is refused, naming the
// file, and nothing is pushed.
func TestPush(t *testing.T) {
	reg := rt.Start(t)
	work := t.TempDir()
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	tree := filepath.Join(work, "tree")
	if _, stderr, code := run(t, work, env, "generate", "--demo", "--out", tree); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	digests := map[string]bool{}
	for _, tag := range []string{"v1", "v1", "other"} {
		ref := "oci://" + reg.Host + "/upgraph/tree:" + tag
		stdout, stderr, code := run(t, work, nil, "push", tree, ref)
		if code != 0 {
			t.Fatalf("push %s: exit %d:\n%s", ref, code, stderr)
		}
		// "pushed HOST/REPO:TAG: HOST/REPO@sha256:… (tree sha256:…, …)"
		_, after, ok := strings.Cut(stdout, reg.Host+"/upgraph/tree@")
		digest, _, _ := strings.Cut(after, " ")
		if !ok || !strings.HasPrefix(stdout, "pushed "+reg.Host+"/upgraph/tree:"+tag+": ") || !strings.HasPrefix(digest, "sha256:") {
			t.Fatalf("push %s printed %q, want the reference pushed and its digest", ref, stdout)
		}
		digests[digest] = true
	}
	if len(digests) != 1 {
		t.Fatalf("three pushes of one tree gave the digests %v, want one", digests)
	}
	var digest string
	for d := range digests {
		digest = d
	}
	ref, err := name.ParseReference(reg.Host + "/upgraph/tree@" + digest)
	if err != nil {
		t.Fatal(err)
	}
	desc, err := remote.Get(ref)
	if err != nil {
		t.Fatal(err)
	}
	var m v1.Manifest
	if err := json.Unmarshal(desc.Manifest, &m); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(tree, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Annotations[ocitree.AnnotationIndexDigest], manifest.Digest(index); got != want {
		t.Errorf("annotation %s = %q, want %q", ocitree.AnnotationIndexDigest, got, want)
	}
	if got := m.Annotations[ocitree.AnnotationCreated]; got != "2023-11-14T22:13:20Z" {
		t.Errorf("annotation %s = %q, want SOURCE_DATE_EPOCH's time", ocitree.AnnotationCreated, got)
	}
	if m.Annotations[ocitree.AnnotationGraphDataVersion] == "" {
		t.Errorf("no annotation %s: %v", ocitree.AnnotationGraphDataVersion, m.Annotations)
	}
	// Pushing by that digest is pushing the same image.
	if _, stderr, code := run(t, work, nil, "push", tree, "oci://"+ref.String()); code != 0 {
		t.Errorf("push by digest: exit %d:\n%s", code, stderr)
	}

	bad := manifest.GraphPath("amd64", "stable-4.16")
	f, err := os.OpenFile(filepath.Join(tree, bad), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(" ")
	f.Close()
	_, stderr, code := run(t, work, nil, "push", tree, "oci://"+reg.Host+"/upgraph/tree:changed")
	if code == 0 || !strings.Contains(stderr, bad) {
		t.Errorf("push of a changed tree: exit %d, want an error naming %s:\n%s", code, bad, stderr)
	}
	if _, err := remote.Head(ref.Context().Tag("changed")); err == nil {
		t.Error("the changed tree was pushed")
	}

	for _, args := range [][]string{
		{"push", tree},
		{"push", tree, reg.Host + "/upgraph/tree:v1"},
		{"push", tree, "oci://" + reg.Host + "/upgraph/tree"},
	} {
		if _, stderr, code := run(t, work, nil, args...); code == 0 || !strings.Contains(stderr, "oci://REGISTRY/REPOSITORY") {
			t.Errorf("upgraph %s: exit %d, want a usage error:\n%s", strings.Join(args, " "), code, stderr)
		}
	}
}
