package scrape_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/release/scrape"
)

// A blob of an OCI layout that was cut short or altered must fail the tag
// (naming it), never pass for a layer without release-metadata, and never
// reach the cache.
func TestLayoutBlobsAreVerified(t *testing.T) {
	base := rt.FillerLayer(t, 1, 4096, true)
	md := rt.MetadataLayer(t, rt.Doc("4.1.0", nil, nil), rt.OCI(), rt.FillerSize(8<<10))
	img := rt.Image(t, "amd64", true, base, md)
	digest, _ := md.Digest()
	for _, tc := range []struct {
		name   string
		damage func(data []byte) []byte
	}{
		{"truncated", func(d []byte) []byte { return d[:len(d)/2] }},
		{"same length, other bytes", func(d []byte) []byte {
			d = append([]byte(nil), d...)
			for i := 200; i < len(d)-200; i++ {
				d[i] ^= 0xff
			}
			return d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := rt.WriteLayout(t, map[string]rt.Artifact{"4.1.0": img})
			blob := filepath.Join(dir, "blobs", "sha256", digest.Hex)
			data, err := os.ReadFile(blob)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(blob, tc.damage(data), 0o644); err != nil {
				t.Fatal(err)
			}
			repo, err := scrape.OpenLayout(dir, "example.com/ocp/release")
			if err != nil {
				t.Fatal(err)
			}
			cache := scrape.DirCache{Dir: t.TempDir()}
			_, err = scrape.Scrape(context.Background(), repo, scrape.Options{Cache: cache})
			var failed *scrape.FailedError
			if !errors.As(err, &failed) || failed.Failed[0].Tag != "4.1.0" || !strings.Contains(err.Error(), digest.Hex) {
				t.Fatalf("want tag 4.1.0 failed naming blob %s, got %v", digest, err)
			}
			if _, ok := cache.Get(mustDigest(t, img)); ok {
				t.Error("a damaged image was cached")
			}
		})
	}
}

func mustDigest(t *testing.T, a rt.Artifact) v1.Hash {
	h, err := a.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestLayoutIndexes(t *testing.T) {
	multi := map[string]string{"release.openshift.io/architecture": "multi"}
	amd := rt.Image(t, "amd64", true, rt.MetadataLayer(t, rt.Doc("4.2.0", nil, multi), rt.OCI()))
	arm := rt.Image(t, "arm64", true, rt.MetadataLayer(t, rt.Doc("4.2.0", nil, multi), rt.OCI()))
	// A single-platform image pushed with provenance: an index of the image
	// and an attestation manifest, which is not a second platform.
	attestation := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: amd, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
		mutate.IndexAddendum{Add: rt.Image(t, "unknown", true, rt.FillerLayer(t, 9, 64, true)), Descriptor: v1.Descriptor{
			MediaType:   types.OCIManifestSchema1,
			Platform:    &v1.Platform{OS: "unknown", Architecture: "unknown"},
			Annotations: map[string]string{"vnd.docker.reference.type": "attestation-manifest"},
		}})
	dir := rt.WriteLayout(t, map[string]rt.Artifact{"4.2.0-multi": rt.Index(t, true, amd, arm), "4.2.0-provenance": attestation})
	repo, err := scrape.OpenLayout(dir, "example.com/ocp/release")
	if err != nil {
		t.Fatal(err)
	}
	res, err := scrape.Scrape(context.Background(), repo, scrape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Releases) != 1 || res.Releases[0].Arch != "multi" || res.Releases[0].Tags[0] != "4.2.0-multi" {
		t.Fatalf("releases %+v, want only 4.2.0-multi as multi", res.Releases)
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "single platform") || res.Skipped[0].Broken {
		t.Errorf("skipped %+v, want 4.2.0-provenance as a single-platform list", res.Skipped)
	}
}
