package source

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

// MetadataKind is the required "kind" of a release-metadata document.
const MetadataKind = "cincinnati-metadata-v0"

// MetadataDocument is one file of a metadata:DIR source: the
// release-metadata document found in a release image
// (release-manifests/release-metadata, spec §2.7) plus what the scraper
// learned from the registry: the payload reference, the image's
// architecture, and optionally the manifest digest.
//
//	{"kind": "cincinnati-metadata-v0", "version": "4.16.3",
//	 "previous": ["4.16.2"], "next": [], "metadata": {"url": "…"},
//	 "payload": "quay.io/openshift-release-dev/ocp-release@sha256:…",
//	 "arch": "amd64", "manifestref": "sha256:…"}
//
// manifestref defaults to the digest of a digest-pinned payload.
type MetadataDocument struct {
	Kind        string            `json:"kind"`
	Version     string            `json:"version"`
	Previous    []string          `json:"previous"`
	Next        []string          `json:"next"`
	Metadata    map[string]string `json:"metadata"`
	Payload     string            `json:"payload"`
	Arch        string            `json:"arch"`
	ManifestRef string            `json:"manifestref"`
}

var archPattern = regexp.MustCompile(`^[0-9a-z]+$`)

// MetadataDir reads every *.json file directly in Dir, in name order.
type MetadataDir struct {
	Dir string
	// FS, when set, is read instead of the directory Dir (which then only
	// names the source), e.g. for embedded demo data.
	FS     fs.FS
	Logger *slog.Logger
}

func (s *MetadataDir) String() string { return "metadata:" + s.Dir }

func (s *MetadataDir) logger() *slog.Logger {
	return Options{Logger: s.Logger}.logger()
}

// Graph reads the documents and assembles the graph.
func (s *MetadataDir) Graph(ctx context.Context) (*graph.Graph, error) {
	fsys := s.FS
	if fsys == nil {
		fsys = os.DirFS(s.Dir)
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("release source: %w", err)
	}
	var names []string
	var types []fs.FileMode
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
			types = append(types, e.Type())
		}
	}
	// Documents are read and parsed on every core (thousands of them at
	// real scale), each worker with its own version cache; results keep
	// name order, and the first failing file in that order is reported
	// (parallel.Run has run every file before a failing one).
	parsed := make([]graph.Release, len(names))
	keep := make([]bool, len(names))
	errs := make([]error, len(names))
	// Each worker takes runs of consecutive documents, so that one
	// release's architectures mostly meet the same cache.
	const run = 32
	workers := runtime.GOMAXPROCS(0)
	caches := make([]*decodeCache, workers)
	for w := range caches {
		caches[w] = newDecodeCache()
	}
	runErr := parallel.Run(ctx, workers, (len(names)+run-1)/run, func(_ context.Context, w, c int) error {
		for i := c * run; i < min(len(names), (c+1)*run); i++ {
			data, err := regularfile.Read(fsys, names[i], filepath.Join(s.Dir, names[i]), types[i].IsRegular(), MaxDocumentBytes)
			if err != nil {
				errs[i] = fmt.Errorf("release source: %w", err)
			} else {
				parsed[i], keep[i], errs[i] = parseMetadataDocument(filepath.Join(s.Dir, names[i]), data, caches[w])
			}
			if errs[i] != nil {
				return errs[i]
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if runErr != nil {
		return nil, runErr
	}
	var releases []graph.Release
	for i, r := range parsed {
		if !keep[i] {
			s.logger().Info("skipping single-arch shard of a multi payload", "file", filepath.Join(s.Dir, names[i]), "version", r.Version.String())
			continue
		}
		releases = append(releases, r)
	}
	if len(releases) == 0 {
		return nil, fmt.Errorf("release source %s: no release-metadata documents (*.json)", s.Dir)
	}
	return graph.AssembleOwned(releases) // the documents' maps were made here
}

// ParseMetadataDocument validates one document and turns it into a
// release the way the registry scraper does (spec §2.4 steps 5–7). keep is
// false for a per-arch shard of a multi payload, which upstream drops.
func ParseMetadataDocument(name string, data []byte) (r graph.Release, keep bool, err error) {
	return parseMetadataDocument(name, data, newDecodeCache())
}

// versionCache parses each distinct version string once: previous lists
// repeat the same few thousand versions hundreds of thousands of times.
type versionCache map[string]version.Version

func (c versionCache) parse(s string) (version.Version, error) {
	if v, ok := c[s]; ok {
		return v, nil
	}
	v, err := version.Parse(s)
	if err == nil {
		c[s] = v
	}
	return v, err
}

func parseMetadataDocument(name string, data []byte, cache *decodeCache) (r graph.Release, keep bool, err error) {
	var doc MetadataDocument
	lists, fast := decodeMetadataFast(data, &doc, cache)
	if !fast {
		doc, lists = MetadataDocument{}, parsedLists{}
		dec := json.NewDecoder(bytes.NewReader(data))
		if err := dec.Decode(&doc); err != nil {
			return r, false, fmt.Errorf("%s: %w", name, graph.JSONPosition(data, err))
		}
	}
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s: %s", name, fieldLine(data, field), field, fmt.Sprintf(format, args...))
	}
	// doc's metadata map was made here: the release can have it.
	return doc.release(name, fail, cache.versions, releaseInput{lists: lists, ownMetadata: true})
}

// releaseInput is what release may take from its document's decoding
// instead of remaking it.
type releaseInput struct {
	// lists holds previous and next already parsed; a nil list is parsed
	// by release.
	lists parsedLists
	// ownMetadata lets the release have the document's metadata map
	// rather than a copy.
	ownMetadata bool
}

// release validates the document and turns it into a release; fail
// formats an error about one field.
func (doc *MetadataDocument) release(name string, fail func(field, format string, args ...any) error, versions versionCache, in releaseInput) (r graph.Release, keep bool, err error) {
	if doc.Kind != MetadataKind {
		return r, false, fail("kind", "want %q, got %q", MetadataKind, doc.Kind)
	}
	v, err := versions.parse(doc.Version)
	if err != nil {
		return r, false, fail("version", "%v", err)
	}
	if !archPattern.MatchString(doc.Arch) {
		return r, false, fail("arch", "want an architecture such as amd64, arm64 or multi, got %q", doc.Arch)
	}
	// The release's version is its document's with the architecture as
	// build: parsed whole when the document's has no build (what
	// WithBuild makes costs twice a parse, thousands of times a build).
	var withArch version.Version
	if v.Build() == "" {
		withArch, _ = version.Parse(v.String() + "+" + doc.Arch) // zero if not
	}
	if withArch.IsZero() {
		withArch = v.WithBuild(doc.Arch)
	}
	if doc.Payload == "" {
		return r, false, fail("payload", "missing payload pull spec")
	}
	// keep is decided before the metadata map can change below.
	keep = !(doc.Metadata[graph.KeyPayloadArch] == "multi" && doc.Arch != "multi")
	r = graph.Release{Version: withArch, Payload: doc.Payload, Origin: name, Metadata: doc.Metadata}
	if !in.ownMetadata || r.Metadata == nil {
		r.Metadata = make(map[string]string, len(doc.Metadata)+2)
		for k, val := range doc.Metadata {
			r.Metadata[k] = val
		}
	}
	ref := doc.ManifestRef
	if _, digest, ok := strings.Cut(doc.Payload, "@"); ok && ref == "" {
		ref = digest
	}
	if ref != "" {
		r.Metadata[graph.KeyManifestRef] = ref
	}
	r.Metadata[graph.KeyArch] = doc.Arch
	for _, list := range []struct {
		field  string
		in     []string
		parsed []version.Version
		out    *[]version.Version
	}{{"previous", doc.Previous, in.lists.previous, &r.Previous}, {"next", doc.Next, in.lists.next, &r.Next}} {
		if list.parsed != nil {
			*list.out = list.parsed
			continue
		}
		*list.out = make([]version.Version, 0, len(list.in))
		for _, s := range list.in {
			pv, err := versions.parse(s)
			if err != nil {
				return r, false, fail(list.field, "%v", err)
			}
			*list.out = append(*list.out, pv)
		}
	}
	return r, keep, nil
}

// fieldLine finds the line of a top-level field for error messages.
func fieldLine(data []byte, field string) int {
	i := bytes.Index(data, []byte(`"`+field+`"`))
	if i < 0 {
		return 1
	}
	return 1 + bytes.Count(data[:i], []byte{'\n'})
}

// MaxDocumentBytes bounds one release-metadata document of a metadata:DIR
// source: a document lists a release and its predecessors, a few KB even
// at real scale, and a file of gigabytes must be refused, not read.
const MaxDocumentBytes = 16 << 20
