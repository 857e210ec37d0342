package imagebuild

import (
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// PushOptions are Push's settings.
type PushOptions struct {
	// Insecure talks plain HTTP to the registry. go-containerregistry
	// already does for localhost, loopback and private addresses; this is
	// for other test registries.
	Insecure bool
}

// Push uploads idx, its manifests and blobs to ref (REGISTRY/REPO:TAG),
// with credentials from authn.DefaultKeychain: the docker config
// ($DOCKER_CONFIG/config.json, which docker/login-action writes) and its
// credential helpers. It returns the reference by digest.
func Push(ctx context.Context, ref string, idx v1.ImageIndex, o PushOptions) (name.Digest, error) {
	var opts []name.Option
	if o.Insecure {
		opts = append(opts, name.Insecure)
	}
	r, err := name.ParseReference(ref, opts...)
	if err != nil {
		return name.Digest{}, fmt.Errorf("push: reference %q: %w", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		return name.Digest{}, fmt.Errorf("push %s: index digest: %w", ref, err)
	}
	if err := remote.WriteIndex(r, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return name.Digest{}, fmt.Errorf("push %s: %w", ref, err)
	}
	return r.Context().Digest(d.String()), nil
}
