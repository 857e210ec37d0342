// Package manifest defines index.json, the table of contents of an output
// tree: what went in, which graphs exist, and the digest and size of every
// file. Servers, publishers and diff tools read the tree through it.
package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/internal/sha256x16"
)

// Format is the version of the output layout described here.
const Format = 1

// FileName is the manifest's name at the root of a tree.
const FileName = "index.json"

// Manifest is the content of index.json.
type Manifest struct {
	Format    int    `json:"format"`
	Generator string `json:"generator"`
	// GeneratedAt is RFC 3339 UTC, from SOURCE_DATE_EPOCH when set.
	GeneratedAt string   `json:"generatedAt"`
	Inputs      Inputs   `json:"inputs"`
	Arches      []string `json:"arches"`
	Channels    []string `json:"channels"`
	Counts      Counts   `json:"counts"`
	Graphs      []Graph  `json:"graphs"`
	// Precompressed is the encoding of the copies every graph and catalog
	// file has beside it (FILE.gz, listed in Files; "gzip"), omitted for a
	// tree without them (generate --no-precompress): servers answer
	// clients that accept it from the copies, never compressing at run
	// time.
	Precompressed string `json:"precompressed,omitempty"`
	// Catalogs are the operator catalogs of the tree (upgraph generate
	// --catalog), by name; omitted when there are none, so trees of
	// release graphs only keep the index.json they always had.
	Catalogs []Catalog `json:"catalogs,omitempty"`
	// Rollouts are the generation's phased rollouts (rollouts.go);
	// omitted without any, so such trees keep the index.json they had.
	Rollouts *Rollouts       `json:"rollouts,omitempty"`
	Files    map[string]File `json:"files"`
}

// Inputs identify what the tree was generated from.
type Inputs struct {
	GraphData GraphDataInput `json:"graphData"`
	Releases  ReleasesInput  `json:"releases"`
}

// GraphDataInput identifies the graph-data tree.
type GraphDataInput struct {
	Version string `json:"version"`
	Digest  string `json:"digest"`
}

// ReleasesInput identifies the release set: Kind is the source kind
// ("graph", "metadata", …) and Digest a sha256 of the canonical unfiltered
// graph, so the same releases from any source kind give the same digest.
type ReleasesInput struct {
	Kind   string `json:"kind"`
	Digest string `json:"digest"`
}

// Counts summarise the generation.
type Counts struct {
	Releases         int   `json:"releases"`
	AbstractReleases int   `json:"abstractReleases"`
	Edges            int   `json:"edges"`
	ConditionalEdges int   `json:"conditionalEdges"`
	Graphs           int   `json:"graphs"`
	VersionGraphs    int   `json:"versionGraphs"`
	Files            int   `json:"files"`
	Bytes            int64 `json:"bytes"`
	// DistinctFiles and DistinctBytes count files with content of their
	// own (index.json excluded); in a directory tree the others are hard
	// links to them.
	DistinctFiles int   `json:"distinctFiles"`
	DistinctBytes int64 `json:"distinctBytes"`
	// Signatures counts the release signature files (also counted in
	// Files); omitted when there are none, so trees without signatures
	// keep the index.json they always had.
	Signatures int `json:"signatures,omitempty"`
}

// Graph describes one channel × arch graph. Its file is GraphPath; the
// per-version file of each entry of Versions (served version strings, in
// node order) is VersionPath.
type Graph struct {
	Channel          string   `json:"channel"`
	Arch             string   `json:"arch"`
	Path             string   `json:"path"`
	Nodes            int      `json:"nodes"`
	Edges            int      `json:"edges"`
	ConditionalEdges int      `json:"conditionalEdges"`
	Versions         []string `json:"versions"`
	// Inputs is the digest ("sha256:<hex>") of everything the graph and
	// its per-version graphs are rendered from (generator.GraphInputs):
	// a later generation whose graph has the same takes its files over
	// from this tree instead of rendering them again. Empty in trees of
	// older upgraphs.
	Inputs string `json:"inputs,omitempty"`
}

// Catalog describes one operator catalog of the tree: its files are under
// operators/<name>/ (docs/operators.md), its summary at Path.
type Catalog struct {
	// Name is the catalog's name, a DNS-1123 label.
	Name string `json:"name"`
	// Source is where it was read from, as given (dir:PATH, file:PATH,
	// image:REF), and Kind that source's kind (dir, file, image).
	Source string `json:"source"`
	Kind   string `json:"kind"`
	// For an image: Resolved is repository@digest of what the reference
	// named (an index or a manifest), Digest the manifest digest of the
	// image read and Platform its platform.
	Resolved string `json:"resolved,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Platform string `json:"platform,omitempty"`
	// ContentDigest is the sha256 of the published blobs as catalogd's
	// /api/v1/all serves them (the catalog's all.jsonl): the same
	// catalog from any source has the same.
	ContentDigest string `json:"contentDigest"`
	// Priority is the catalog's spec.priority in the tree's set (generate
	// --catalog-set); absent for 0.
	Priority int32 `json:"priority,omitempty"`
	// Path is the catalog's summary, operators/<name>/catalog.json.
	Path   string        `json:"path"`
	Counts CatalogCounts `json:"counts"`
	// Packages are the published packages, by name.
	Packages []string `json:"packages"`
	// PackageInputs are, by package, the digest (sha256:<hex>) of what
	// the package's files (graph/, next/) are rendered from: its blobs,
	// the catalog's name, the blobs naming no package and, in a catalog
	// set, every catalog of the set (docs/incremental.md). An
	// incremental generation takes over the files of a package whose
	// digest is unchanged.
	PackageInputs map[string]string `json:"packageInputs,omitempty"`
	// GzipSegments are, by the name of a segmented gzip copy of the
	// catalog (precompress.GzipSegmented: all.jsonl.gz and the
	// metas/schema/ copies of a large catalog), its segments in order,
	// each [size of its part of the content, size of its compressed
	// bytes], which start after the copy's header: a regeneration copies
	// the compressed bytes of the parts that did not change from the
	// previous copy (docs/incremental.md). Omitted when there are none.
	GzipSegments map[string][][2]int64 `json:"gzipSegments,omitempty"`
	// GzipSegmentInputs are, by the name of a segmented gzip copy, the
	// digest (sha256:<hex>) of what each segment's part is made of (its
	// blobs, each named by the digest of its package's blobs and its
	// place among them; "" for a part that cannot be named so), in the
	// order of GzipSegments: an incremental generation copies the
	// compressed bytes of a part whose digest is unchanged without
	// reading the previous content (docs/incremental.md).
	GzipSegmentInputs map[string][]string `json:"gzipSegmentInputs,omitempty"`
}

// CatalogCounts summarise a catalog.
type CatalogCounts struct {
	Packages int `json:"packages"`
	Channels int `json:"channels"`
	Bundles  int `json:"bundles"`
	// Files counts the catalog's files (also counted in Counts.Files).
	Files int `json:"files"`
	// SkippedPackages counts the packages left out for their errors
	// (generate --catalog-valid-only); omitted when none was.
	SkippedPackages int `json:"skippedPackages,omitempty"`
}

// File is the digest and size of one file of the tree.
type File struct {
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// EmptyGraphPath holds the empty graph: what a policy-engine answers for a
// channel it does not know, and what a CDN can serve (with status 200) for
// any key it does not have, since a cluster reads the same VersionNotFound
// from it as from a channel graph lacking its version.
const EmptyGraphPath = "graph/empty.json"

// SchemaDir holds the JSON Schemas of every format in the tree.
const SchemaDir = "schema/"

// EmptyGraph is the content of EmptyGraphPath.
const EmptyGraph = `{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`

// SignaturePath is where signature-<n> of the release with payload digest
// "sha256:<hex>" lives in a tree: signatures/ is laid out as the signature
// store clusters read (sha256=<hex>/signature-<n>), so it can be one.
func SignaturePath(digest string, n int) string {
	return "signatures/" + strings.Replace(digest, ":", "=", 1) + "/signature-" + strconv.Itoa(n)
}

// GraphPath is where the channel × arch graph lives in a tree.
func GraphPath(arch, channel string) string {
	return path.Join("graph", arch, channel+".json")
}

// Encode renders the manifest deterministically (map keys sorted, no HTML
// escaping), ending in a newline.
//
// The bytes are encoding/json's (jsonw.Marshal). The file table, tens of
// thousands of entries, is written by hand beside the rest, since through
// reflection it took most of the time a generation spends after its last
// graph is rendered.
func (m *Manifest) Encode() ([]byte, error) {
	var (
		files []byte
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		files = encodeFiles(m.Files)
	}()
	head := *m
	head.Files = nil
	b, err := jsonw.Marshal(&head)
	<-done
	if err != nil {
		return nil, err
	}
	const null = "null}\n"
	if !bytes.HasSuffix(b, []byte(`"files":`+null)) {
		return nil, fmt.Errorf("index.json: files are not the last member") // a field added after Files
	}
	b = append(b[:len(b)-len(null)], files...)
	return append(b, "}\n"...), nil
}

// encodeFiles writes files as encoding/json does a map[string]File.
// appendPlainString appends s quoted. Printable ASCII other than '"' and
// '\' is written as is, as encoding/json writes it; anything else goes
// through encoding/json.
func appendPlainString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := jsonw.Marshal(s) // a string always encodes
			return append(b, bytes.TrimSuffix(q, []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Read loads index.json from the tree at dir.
func Read(dir string) (*Manifest, error) {
	p := filepath.Join(dir, FileName)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return m, nil
}

// SHA256 is the hex digest recorded for a file's content.
func SHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// SHA256s is SHA256 of each element of data, computed together: sixteen
// at a time where the CPU has AVX-512, two at a time where it has the SHA
// extensions (see sha256x16).
func SHA256s(data [][]byte) []string {
	sums := sha256x16.Sum(data)
	hexes := make([]string, len(sums))
	for i, sum := range sums {
		hexes[i] = hex.EncodeToString(sum[:])
	}
	return hexes
}

// SHA256sEqual is SHA256s, comparing each element with the bytes old
// gives for it in the same pass (see sha256x16.SumEqual for old and
// done).
func SHA256sEqual(data [][]byte, old func(i int) ([]byte, bool), done func(i int, equal bool)) []string {
	sums := sha256x16.SumEqual(data, old, done)
	hexes := make([]string, len(sums))
	for i, sum := range sums {
		hexes[i] = hex.EncodeToString(sum[:])
	}
	return hexes
}

// Digest is the "sha256:<hex>" identity of a document: a whole generation
// by its index.json, a release set by its canonical graph.
func Digest(index []byte) string { return DigestParts(index) }

// DigestParts is Digest of the parts' concatenation.
func DigestParts(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
