package scrape

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/upgraph/upgraph/registry"
)

// Repository is a place release images are listed and read from: a
// registry repository or an OCI image layout.
type Repository interface {
	// Name is the repository clusters pull the payloads from, e.g.
	// "quay.io/openshift-release-dev/ocp-release".
	Name() string
	// Tags lists every tag; all are candidates, as upstream (spec §2.3).
	Tags(ctx context.Context) ([]string, error)
	// Resolve returns the manifest a tag points to, as cheaply as the
	// repository allows (a HEAD request for a registry).
	Resolve(ctx context.Context, tag string) (v1.Descriptor, error)
	Image(ctx context.Context, digest v1.Hash) (v1.Image, error)
	Index(ctx context.Context, digest v1.Hash) (v1.ImageIndex, error)
}

// Remote is a repository in a Docker v2 / OCI registry.
type Remote struct {
	Client *registry.Client
	Repo   name.Repository
	// Payload overrides Name, e.g. when clusters pull through a mirror.
	Payload string
	// MaxTags bounds the tag list (0: DefaultMaxTags).
	MaxTags int
}

// NewRemote parses "HOST/REPO" (optionally with an http:// scheme).
func NewRemote(c *registry.Client, spec string) (*Remote, error) {
	repo, err := c.Repository(spec)
	if err != nil {
		return nil, err
	}
	return &Remote{Client: c, Repo: repo}, nil
}

func (r *Remote) Name() string {
	if r.Payload != "" {
		return r.Payload
	}
	return r.Repo.Name()
}

// DefaultMaxTags bounds a repository's tag list: the real release
// repositories have a few thousand tags, and a registry whose pages never
// end must not make the list grow until memory runs out.
const DefaultMaxTags = 1 << 20

// Tags lists the tags page by page, refusing a page the registry already
// gave (a loop in its Link headers, which go-containerregistry's List
// follows for ever) and more than MaxTags tags.
func (r *Remote) Tags(ctx context.Context) ([]string, error) {
	maxTags := r.MaxTags
	if maxTags <= 0 {
		maxTags = DefaultMaxTags
	}
	lister, err := r.Client.Puller.Lister(ctx, r.Repo)
	if err != nil {
		return nil, fmt.Errorf("listing tags of %s: %w", r.Repo, err)
	}
	tags := []string{}
	pages := map[string]bool{}
	for lister.HasNext() {
		page, err := lister.Next(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing tags of %s: %w", r.Repo, err)
		}
		tags = append(tags, page.Tags...)
		switch {
		case len(tags) > maxTags:
			return nil, fmt.Errorf("listing tags of %s: more than %d tags", r.Repo, maxTags)
		case pages[page.Next]:
			return nil, fmt.Errorf("listing tags of %s: the registry gives page %s again after %d tags (a loop in its Link headers)", r.Repo, page.Next, len(tags))
		case page.Next != "":
			pages[page.Next] = true
		}
	}
	return tags, nil
}

func (r *Remote) Resolve(ctx context.Context, tag string) (v1.Descriptor, error) {
	d, err := r.Client.Puller.Head(ctx, r.Repo.Tag(tag))
	if err != nil {
		return v1.Descriptor{}, err
	}
	return *d, nil
}

func (r *Remote) Image(ctx context.Context, h v1.Hash) (v1.Image, error) {
	d, err := r.Client.Puller.Get(ctx, r.Repo.Digest(h.String()))
	if err != nil {
		return nil, err
	}
	return d.Image()
}

func (r *Remote) Index(ctx context.Context, h v1.Hash) (v1.ImageIndex, error) {
	d, err := r.Client.Puller.Get(ctx, r.Repo.Digest(h.String()))
	if err != nil {
		return nil, err
	}
	return d.ImageIndex()
}

// Layout is an OCI image layout on disk, as mirroring tools write for
// disconnected sites. Its tags are the org.opencontainers.image.ref.name
// annotations of index.json; an unnamed manifest is listed by digest.
type Layout struct {
	Path    layout.Path
	Payload string
	root    v1.ImageIndex
	index   *v1.IndexManifest
}

// OpenLayout reads the layout's index.json. payload is the repository
// clusters will pull the releases from.
func OpenLayout(dir, payload string) (*Layout, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("oci:%s: %w", dir, err)
	}
	ii, err := p.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("oci:%s: %w", dir, err)
	}
	im, err := ii.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("oci:%s: index.json: %w", dir, err)
	}
	return &Layout{Path: p, Payload: payload, root: ii, index: im}, nil
}

const refNameAnnotation = "org.opencontainers.image.ref.name"

func (l *Layout) Name() string { return l.Payload }

func (l *Layout) Tags(context.Context) ([]string, error) {
	var tags []string
	for _, d := range l.index.Manifests {
		if t := d.Annotations[refNameAnnotation]; t != "" {
			tags = append(tags, t)
		} else {
			tags = append(tags, d.Digest.String())
		}
	}
	slices.Sort(tags)
	return slices.Compact(tags), nil
}

func (l *Layout) Resolve(_ context.Context, tag string) (v1.Descriptor, error) {
	for _, d := range l.index.Manifests {
		if d.Annotations[refNameAnnotation] == tag || d.Annotations[refNameAnnotation] == "" && d.Digest.String() == tag {
			return d, nil
		}
	}
	return v1.Descriptor{}, fmt.Errorf("tag %q not in %s/index.json", tag, l.Path)
}

func (l *Layout) Image(_ context.Context, h v1.Hash) (v1.Image, error) {
	img, err := l.Path.Image(h)
	if err != nil {
		return nil, err
	}
	return verifiedImage{img}, nil
}

func (l *Layout) Index(_ context.Context, h v1.Hash) (v1.ImageIndex, error) {
	idx, err := l.root.ImageIndex(h)
	if err != nil {
		return nil, err
	}
	return verifiedIndex{idx}, nil
}
