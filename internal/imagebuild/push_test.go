package imagebuild

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/upgraph/upgraph/internal/registrytest"
)

// TestPushAndPull: the index pushed to a real registry (CNCF
// distribution) pulls back with the same digest and the four platforms,
// each platform's image resolving to the manifest built locally; with
// --insecure as well.
func TestPushAndPull(t *testing.T) {
	idx, _ := sharedImage(t)
	want, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	reg := registrytest.Start(t)
	// No credentials of the developer's: the keychain reads this empty
	// docker config and goes anonymous.
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	ctx := context.Background()

	for _, c := range []struct {
		tag      string
		insecure bool
	}{{"test", false}, {"insecure", true}} {
		ref := reg.Host + "/upgraph/upgraph:" + c.tag
		pushed, err := Push(ctx, ref, idx, PushOptions{Insecure: c.insecure})
		if err != nil {
			t.Fatal(err)
		}
		if pushed.DigestStr() != want.String() {
			t.Errorf("Push says %s, want %s", pushed, want)
		}
		r, err := name.ParseReference(ref)
		if err != nil {
			t.Fatal(err)
		}
		pulled, err := remote.Index(r, remote.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		got, err := pulled.Digest()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: pulled %s, pushed %s", ref, got, want)
		}
		im, err := pulled.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		local, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		var plats []string
		for i, d := range im.Manifests {
			plats = append(plats, d.Platform.String())
			img, err := remote.Image(r, remote.WithContext(ctx), remote.WithPlatform(*d.Platform))
			if err != nil {
				t.Fatal(err)
			}
			if dd, _ := img.Digest(); dd != local.Manifests[i].Digest {
				t.Errorf("%s for %s: %s, built %s", ref, d.Platform, dd, local.Manifests[i].Digest)
			}
		}
		if !slices.Equal(plats, platformNames()) {
			t.Errorf("%s: platforms %v", ref, plats)
		}
	}
}
