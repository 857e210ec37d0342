// Package source says where an operator catalog comes from: a file-based
// catalog (FBC) directory, a single FBC file, or a catalog image in a
// registry. Every kind yields the same thing, the catalog as
// operator-registry loads it (catalog/declcfg), and Info, which records
// what was read (for an image: the digest, the platform chosen and the
// configs directory), so that a summary can pin the exact input.
package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/registry"
)

// Source is where a catalog comes from.
type Source interface {
	// Load reads the catalog. Errors in the catalog's files are
	// *declcfg.Error values (file and line) wrapped with the source.
	Load(ctx context.Context) (*declcfg.DeclarativeConfig, Info, error)
	// String names the source as Parse accepts it, e.g. "dir:catalog/".
	String() string
}

// Kind is the kind of a source.
type Kind string

const (
	KindDir   Kind = "dir"
	KindFile  Kind = "file"
	KindImage Kind = "image"
)

// Info records what a Load read.
type Info struct {
	Kind Kind `json:"kind"`
	// Reference is the path or image reference as given.
	Reference string `json:"reference"`

	// The rest is for images.

	// Resolved pins what Reference named: repository@digest of the
	// manifest or index the registry returned for it.
	Resolved string `json:"resolved,omitempty"`
	// IndexDigest is the digest of the index (manifest list) Reference
	// named, if it named one; Platforms lists its platforms in order.
	IndexDigest string   `json:"indexDigest,omitempty"`
	Platforms   []string `json:"platforms,omitempty"`
	// Digest is the manifest digest of the image read: the one chosen from
	// the index, or the image Reference named.
	Digest string `json:"digest,omitempty"`
	// Platform is the platform of the image read (os/arch[/variant]):
	// the index entry chosen, or the image's own config.
	Platform string `json:"platform,omitempty"`
	// ConfigsDir is the value of the image's configs label, the directory
	// holding the catalog (normally /configs).
	ConfigsDir string `json:"configsDir,omitempty"`
	// Cached is true when the catalog came from the cache, without
	// downloading the image's config or layers.
	Cached bool `json:"cached,omitempty"`
}

// Options configure Parse.
type Options struct {
	// Registry configures registry access for image sources (credentials,
	// CA file, plain HTTP, retries), as for release scrapes.
	Registry registry.Options
	// Client, if set, is used instead of a client built from Registry.
	Client *registry.Client
	// Platform chooses the image of a multi-platform index: os/arch or
	// os/arch/variant ("" is linux/amd64).
	Platform string
	// CacheDir keeps the catalogs of images by manifest digest across runs
	// ("" keeps nothing: the catalog is extracted to a temporary directory),
	// and what decoding each catalog file of any source gave, by the
	// digest of its bytes (declcfg.FileCache), so that a catalog loaded
	// again after a change decodes only the files that changed. Loads
	// remove the decoded files' entries no load used for a week (and the
	// least recently used beyond declcfg.DefaultMaxBytes); images' are
	// kept.
	CacheDir string
	Logger   *slog.Logger
}

// DefaultPlatform is the platform chosen from a multi-platform index.
const DefaultPlatform = "linux/amd64"

// Syntax describes the source strings Parse accepts, for help texts.
const Syntax = "dir:PATH (an FBC directory), file:PATH (one FBC file: a JSON stream or YAML documents), " +
	"image:REF or docker://REF (a catalog image by tag or digest); without a prefix an existing directory " +
	"or file, otherwise an image reference that names its registry (HOST[:PORT]/REPO:TAG or @sha256:…)"

// Parse returns the source named by spec:
//
//   - "dir:PATH", "file:PATH", "image:REF" and "docker://REF" say what they
//     are; nothing is guessed.
//   - Without one of those prefixes, an existing directory is a dir
//     source and an existing file a file source. Anything else must be an
//     image reference whose first component names a registry (it has a
//     "." or a ":" or is "localhost"), so that a mistyped path is reported
//     as missing rather than looked up in a registry.
//   - Image references are strict, as for release sources: the registry
//     and a tag or digest are always written (docker.io/library/x:latest,
//     not x); a leading http:// or https:// sets the registry's protocol.
func Parse(spec string, opts Options) (Source, error) {
	if spec == "" {
		return nil, errors.New("catalog source: empty; want " + Syntax)
	}
	kind, arg, ok := strings.Cut(spec, ":")
	if ok {
		switch kind {
		case "dir", "file", "image":
			if arg == "" {
				return nil, fmt.Errorf("catalog source %q: nothing after %q", spec, kind+":")
			}
			return newSource(Kind(kind), arg, opts)
		case "docker":
			if ref, found := strings.CutPrefix(arg, "//"); found {
				if ref == "" {
					return nil, fmt.Errorf("catalog source %q: nothing after %q", spec, "docker://")
				}
				return newSource(KindImage, ref, opts)
			}
		}
	}
	st, err := os.Stat(spec)
	switch {
	case err == nil && st.IsDir():
		return newSource(KindDir, spec, opts)
	case err == nil:
		return newSource(KindFile, spec, opts)
	case !errors.Is(err, fs.ErrNotExist):
		// The path is there but cannot be followed or read: a loop of
		// symbolic links, a directory without permission, a file in the
		// middle of the path.
		return nil, fmt.Errorf("catalog source %q: a path that cannot be read: %w", spec, err)
	}
	if lst, err := os.Lstat(spec); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(spec)
		return nil, fmt.Errorf("catalog source %q: a symbolic link to %s, which does not exist", spec, target)
	}
	switch {
	case looksLikePath(spec):
		return nil, fmt.Errorf("catalog source %q: no such file or directory", spec)
	case !namesRegistry(spec):
		return nil, fmt.Errorf("catalog source %q: no such file or directory, and not an image reference naming its registry (HOST[:PORT]/REPO:TAG, e.g. docker.io/library/%s)", spec, spec)
	}
	return newSource(KindImage, spec, opts)
}

func looksLikePath(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "~") || s == "." || s == ".." || filepath.IsAbs(s)
}

// namesRegistry reports whether an image reference's first component is a
// registry host, as Docker decides it (go-containerregistry's
// name.ParseReference would default anything else to Docker Hub).
func namesRegistry(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "http://"), "https://")
	host, rest, ok := strings.Cut(s, "/")
	if !ok || rest == "" {
		return false
	}
	return strings.ContainsAny(host, ".:") || host == "localhost"
}

// decodedCache is the cache of decoded files under dir, nil for none.
func decodedCache(dir string) *declcfg.FileCache {
	if dir == "" {
		return nil
	}
	return &declcfg.FileCache{Dir: dir}
}

func newSource(kind Kind, arg string, opts Options) (Source, error) {
	switch kind {
	case KindDir:
		return &Dir{Path: arg, Decoded: decodedCache(opts.CacheDir)}, nil
	case KindFile:
		return &File{Path: arg, Decoded: decodedCache(opts.CacheDir)}, nil
	}
	client := opts.Client
	if client == nil {
		o := opts.Registry
		if o.Logger == nil {
			o.Logger = opts.Logger
		}
		var err error
		if client, err = registry.New(o); err != nil {
			return nil, fmt.Errorf("catalog source %q: %w", arg, err)
		}
	}
	if _, err := client.Reference(arg); err != nil {
		return nil, fmt.Errorf("catalog source: %w", err)
	}
	platform, err := ParsePlatform(opts.Platform)
	if err != nil {
		return nil, err
	}
	return &Image{Ref: arg, Client: client, Platform: platform, CacheDir: opts.CacheDir, Logger: opts.Logger}, nil
}

// Dir is an FBC directory: every file under it is part of the catalog
// (.indexignore aside).
type Dir struct {
	Path string
	// Decoded, if set, keeps each file's blobs across loads.
	Decoded *declcfg.FileCache
}

func (s *Dir) String() string { return "dir:" + s.Path }

// Load reads the directory.
func (s *Dir) Load(ctx context.Context) (*declcfg.DeclarativeConfig, Info, error) {
	info := Info{Kind: KindDir, Reference: s.Path}
	st, err := os.Stat(s.Path)
	if err == nil && !st.IsDir() {
		err = fmt.Errorf("%s is not a directory (use file:%s for a single catalog file)", s.Path, s.Path)
	}
	if err != nil {
		return nil, info, fmt.Errorf("catalog %s: %w", s, err)
	}
	cfg, err := declcfg.LoadWith(ctx, os.DirFS(s.Path), ".", declcfg.Options{Cache: s.Decoded})
	if err != nil {
		return nil, info, fmt.Errorf("catalog %s: %w", s, err)
	}
	return cfg, info, nil
}

// File is a single FBC file: a JSON stream or YAML documents. Positions
// name it by its base name.
type File struct {
	Path string
	// Decoded, if set, keeps the file's blobs across loads.
	Decoded *declcfg.FileCache
}

func (s *File) String() string { return "file:" + s.Path }

// Load reads the file.
func (s *File) Load(ctx context.Context) (*declcfg.DeclarativeConfig, Info, error) {
	info := Info{Kind: KindFile, Reference: s.Path}
	st, err := os.Stat(s.Path)
	switch {
	case err == nil && st.IsDir():
		err = fmt.Errorf("%s is a directory (use dir:%s)", s.Path, s.Path)
	case err == nil && !st.Mode().IsRegular():
		// A named pipe would block the load, a device be read without
		// end (declcfg refuses them too, naming only the base name).
		err = fmt.Errorf("%s is not a regular file (%s)", s.Path, st.Mode().Type())
	}
	if err != nil {
		return nil, info, fmt.Errorf("catalog %s: %w", s, err)
	}
	cfg, err := declcfg.LoadFileWith(ctx, os.DirFS(filepath.Dir(s.Path)), filepath.Base(s.Path), declcfg.Options{Cache: s.Decoded})
	if err != nil {
		return nil, info, fmt.Errorf("catalog %s: %w", s, err)
	}
	return cfg, info, nil
}
