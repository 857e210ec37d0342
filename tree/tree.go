// Package tree reads a published upgraph tree -- index.json and the files
// it lists -- wherever it lives, behind one small interface in the style
// of go-containerregistry's v1.Image: a directory, a bundle (.tar.gz), an
// http(s) host publishing a tree, an s3://BUCKET/PREFIX, an OCI image in a
// registry (oci://REGISTRY/REPO:TAG or @sha256:DIGEST) or in an OCI layout
// directory. Open parses a location string (ParseLocation) into the right
// implementation, so every command that reads a tree accepts the same
// syntax. A Cincinnati graph endpoint has no index.json and is not a tree:
// ParseLocation reports it as KindEndpoint and Open refuses it, for the
// commands that also read endpoints to open it as one.
//
// Every file is read through the manifest: ReadFile returns only a file
// index.json lists, and only with the size and sha256 it gives, so a tree
// copied or fetched halfway, or tampered with, is an error naming the
// file, never silently different content.
package tree

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// Tree is one generation of a published tree.
type Tree interface {
	// Manifest is index.json, parsed; Index its exact bytes.
	Manifest() *manifest.Manifest
	Index() []byte
	// ReadFile returns a file index.json lists, checked against its size
	// and sha256 there.
	ReadFile(ctx context.Context, name string) ([]byte, error)
	// ReadMetadata returns tuf/NAME, a file of the tree's TUF metadata
	// (manifest.MetadataDir), which index.json cannot list: unchecked
	// here, package tree/sign verifies it. A file the tree does not have
	// is an error wrapping fs.ErrNotExist.
	ReadMetadata(ctx context.Context, name string) ([]byte, error)
	// String names the tree's location in messages.
	String() string
	// Close releases what Open took: connections, an extracted copy.
	Close() error
}

// Local is a Tree whose files are in a local directory: a directory, or a
// bundle or an image extracted by Open. Serving reads such a tree's
// files directly.
type Local interface {
	Tree
	Dir() string
}

// Options configure how Open reaches a tree. The zero value works for
// public locations.
type Options struct {
	// S3 configures the client of s3:// trees.
	S3 s3tree.ClientOptions
	// Registry configures access to oci:// trees.
	Registry registry.Options
	// TempDir is where bundles and images are extracted (default:
	// os.TempDir()); Close removes what Open extracted.
	TempDir string
	Logger  *slog.Logger
}

// Open opens the tree at location (see ParseLocation). ctx bounds every
// request made through a remote tree, until it is closed.
func Open(ctx context.Context, location string, opts Options) (Tree, error) {
	loc, err := ParseLocation(location)
	if err != nil {
		return nil, err
	}
	return loc.Open(ctx, opts)
}

// Open opens the tree at l.
func (l Location) Open(ctx context.Context, opts Options) (Tree, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	switch l.Kind {
	case KindDir:
		return OpenDir(l.Path)
	case KindBundle:
		return openBundle(ctx, l, opts)
	case KindHTTP:
		return openHTTP(ctx, l, opts)
	case KindS3:
		return openS3(ctx, l, opts)
	case KindOCI, KindOCILayout:
		return openOCI(ctx, l, opts)
	case KindEndpoint:
		return nil, fmt.Errorf("%s is a graph endpoint, not a tree (it has no %s)", l.Raw, manifest.FileName)
	}
	return nil, fmt.Errorf("%s: unknown kind of location", l.Raw)
}

// opened is a Tree whose files read returns, each checked against
// index.json before it is returned.
type opened struct {
	name  string
	index []byte
	m     *manifest.Manifest
	read  func(ctx context.Context, name string) ([]byte, error)
	close func() error
}

func (t *opened) Manifest() *manifest.Manifest { return t.m }
func (t *opened) Index() []byte                { return t.index }
func (t *opened) String() string               { return t.name }
func (t *opened) Close() error                 { return t.close() }

// MaxMetadataBytes bounds one TUF metadata file read from a tree: the
// targets of a tree of a million files, at about 150 bytes each.
const MaxMetadataBytes = 256 << 20

// ReadMetadata reads tuf/name; name must be a metadata file name
// (manifest.IsMetadataName).
func (t *opened) ReadMetadata(ctx context.Context, name string) ([]byte, error) {
	if !manifest.IsMetadataName(name) {
		return nil, fmt.Errorf("%s: %s/%s is not a TUF metadata file name", t.name, manifest.MetadataDir, name)
	}
	data, err := t.read(ctx, manifest.MetadataDir+"/"+name)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxMetadataBytes {
		return nil, fmt.Errorf("%s: %s/%s has %d bytes, more than the %d a metadata file may have", t.name, manifest.MetadataDir, name, len(data), MaxMetadataBytes)
	}
	return data, nil
}

// ReadFile reads name, which index.json must list, and checks it has the
// size and sha256 given there.
func (t *opened) ReadFile(ctx context.Context, name string) ([]byte, error) {
	f, ok := t.m.Files[name]
	if !ok {
		return nil, fmt.Errorf("%s: %s is not listed in %s", t.name, name, manifest.FileName)
	}
	data, err := t.read(ctx, name)
	switch {
	case err != nil:
		return nil, err
	case int64(len(data)) != f.Size:
		return nil, fmt.Errorf("%s: %s has %d bytes, %s says %d", t.name, name, len(data), manifest.FileName, f.Size)
	case manifest.SHA256(data) != f.SHA256:
		return nil, fmt.Errorf("%s: %s does not match its sha256 in %s", t.name, name, manifest.FileName)
	}
	return data, nil
}
