package source_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/scrape"
	"github.com/upgraph/upgraph/release/source"
)

// releaseSet is one of every kind of tag the scraper must handle, with the
// graph-builder JSON a correct scrape is equivalent to.
type releaseSet struct {
	artifacts map[string]rt.Artifact // by tag
}

func multiMD() map[string]string {
	return map[string]string{"release.openshift.io/architecture": "multi"}
}

func newReleaseSet(t *testing.T) releaseSet {
	md := func(doc map[string]any, oci bool) v1.Layer {
		if oci {
			return rt.MetadataLayer(t, doc, rt.OCI())
		}
		return rt.MetadataLayer(t, doc)
	}
	base := rt.FillerLayer(t, 1, 4096, false)
	amd := rt.Image(t, "amd64", false, base, md(rt.Doc("4.1.0", nil, map[string]string{"url": "https://errata/4.1.0"}), false))
	oci := rt.Image(t, "amd64", true, base, md(rt.Doc("4.1.1", []string{"4.1.0"}, nil), true))
	// release-metadata in a lower layer, overridden by the top layer.
	layered := rt.Image(t, "arm64", false, base,
		md(rt.Doc("9.9.9", nil, nil), false),
		md(rt.Doc("4.1.1", []string{"4.1.0"}, nil), false),
		rt.FillerLayer(t, 2, 1024, false))
	shardAMD := rt.Image(t, "amd64", false, base, md(rt.Doc("4.2.0", []string{"4.1.1"}, multiMD()), false))
	shardARM := rt.Image(t, "arm64", false, base, md(rt.Doc("4.2.0", []string{"4.1.1"}, multiMD()), false))
	return releaseSet{artifacts: map[string]rt.Artifact{
		"4.1.0-x86_64":        amd,
		"4.1.0-again":         amd, // a second tag on one digest: one release
		"4.1.1-x86_64":        oci,
		"4.1.1-aarch64":       layered,
		"4.2.0-multi":         rt.Index(t, false, shardAMD, shardARM),
		"4.2.0-multi-oci":     rt.Index(t, true, shardAMD, shardARM),
		"4.2.0-aarch64-shard": shardARM, // per-arch shard of a multi payload: dropped
		"tools":               rt.Image(t, "amd64", false, base),
		"sha256-abc.sig":      rt.Image(t, "amd64", true, rt.FillerLayer(t, 3, 100, true)),
	}}
}

// want is the graph-builder JSON equivalent to the scrape of s pushed to
// repo (payloads name repo).
func (s releaseSet) want(t *testing.T, repo string) *graph.Graph {
	t.Helper()
	digest := func(tag string) string { return rt.Digest(t, s.artifacts[tag]) }
	node := func(version, tag, arch string, extra string) string {
		d := digest(tag)
		return fmt.Sprintf(`{"version":%q,"payload":"%s@%s","metadata":{"io.openshift.upgrades.graph.release.manifestref":%q,"io.openshift.upgrades.graph.release.arch":%q%s}}`,
			version, repo, d, d, arch, extra)
	}
	multi := `,"release.openshift.io/architecture":"multi"`
	nodes := []string{
		node("4.1.0+amd64", "4.1.0-x86_64", "amd64", `,"url":"https://errata/4.1.0"`), // 0
		node("4.1.1+amd64", "4.1.1-x86_64", "amd64", ""),                              // 1
		node("4.1.1+arm64", "4.1.1-aarch64", "arm64", ""),                             // 2
		node("4.2.0+multi", "4.2.0-multi", "multi", multi),                            // 3
		`{"version":"4.1.0+arm64"}`,                                                   // 4 abstract
		`{"version":"4.1.1+multi"}`,                                                   // 5 abstract
	}
	doc := `{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[[0,1],[4,2],[5,3]]}`
	g, err := graph.Decode("want", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func encode(g *graph.Graph) string { return string(g.Encode(g.SortedOrder())) }

func TestRegistrySourceEqualsGraphInput(t *testing.T) {
	reg := rt.Start(t)
	set := newReleaseSet(t)
	repo := reg.Host + "/ocp/release"
	for tag, a := range set.artifacts {
		rt.Push(t, repo+":"+tag, a)
	}
	// The OCI-index twin of 4.2.0-multi has another digest but the same
	// version: a conflicting second payload for 4.2.0+multi.
	src, err := source.Parse("registry:"+repo, source.Options{Scrape: scrape.Options{Cache: scrape.DirCache{Dir: t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Graph(context.Background())
	if err == nil || !strings.Contains(err.Error(), "4.2.0+multi is provided twice") || !strings.Contains(err.Error(), "tag 4.2.0-multi") {
		t.Fatalf("two payloads for one version: want an error naming both tags, got %v", err)
	}

	repo2 := reg.Host + "/ocp/release2"
	for tag, a := range set.artifacts {
		if tag != "4.2.0-multi-oci" {
			rt.Push(t, repo2+":"+tag, a)
		}
	}
	src, err = source.Parse("registry:"+repo2, source.Options{Scrape: scrape.Options{Cache: scrape.DirCache{Dir: t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	scraped := src.(*source.Scraped)
	got, err := scraped.Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if g, w := encode(got), encode(set.want(t, repo2)); g != w {
		t.Errorf("scraped graph differs from the equivalent graph: input\n got %s\nwant %s", g, w)
	}
	skipped := map[string]string{}
	for _, s := range scraped.Result.Skipped {
		skipped[s.Tag] = s.Reason
	}
	for tag, reason := range map[string]string{"tools": "no layer has", "4.2.0-aarch64-shard": "shard", "sha256-abc.sig": "no layer has"} {
		if !strings.Contains(skipped[tag], reason) {
			t.Errorf("tag %s: skip reason %q, want it to mention %q", tag, skipped[tag], reason)
		}
	}
	if len(skipped) != 3 {
		t.Errorf("skipped %v, want exactly tools, the shard and the signature", skipped)
	}

	// The same images in an OCI layout give the same graph.
	// Without the shard's own tag, the index's children are only reachable
	// through the index.
	tagged := map[string]rt.Artifact{}
	for tag, a := range set.artifacts {
		if tag != "4.2.0-multi-oci" && tag != "4.2.0-aarch64-shard" {
			tagged[tag] = a
		}
	}
	dir := rt.WriteLayout(t, tagged)
	if _, err := source.Parse("oci:"+dir, source.Options{}); err == nil || !strings.Contains(err.Error(), "--payload-repo") {
		t.Errorf("oci: without a payload repository: want an error asking for --payload-repo, got %v", err)
	}
	src, err = source.Parse("oci:"+dir, source.Options{PayloadRepo: repo2})
	if err != nil {
		t.Fatal(err)
	}
	got, err = src.Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if g, w := encode(got), encode(set.want(t, repo2)); g != w {
		t.Errorf("OCI layout graph differs from the equivalent graph: input\n got %s\nwant %s", g, w)
	}
}

func TestRegistrySourceRejectsCycles(t *testing.T) {
	reg := rt.Start(t)
	repo := reg.Host + "/cycle"
	base := rt.FillerLayer(t, 1, 512, false)
	rt.Push(t, repo+":0.0.1", rt.Image(t, "amd64", false, base, rt.MetadataLayer(t, rt.Doc("0.0.1", nil, nil))))
	cyclic := rt.Doc("0.0.2", []string{"0.0.1"}, nil)
	cyclic["next"] = []string{"0.0.1"}
	rt.Push(t, repo+":0.0.2", rt.Image(t, "amd64", false, base, rt.MetadataLayer(t, cyclic)))
	src, err := source.Parse("registry:"+repo, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Graph(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cycle") || !strings.Contains(err.Error(), "tag 0.0.2") {
		t.Fatalf("want a cycle error naming tag 0.0.2, got %v", err)
	}
}
