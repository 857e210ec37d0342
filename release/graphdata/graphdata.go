// Package graphdata loads an OpenShift graph-data tree (spec §3): the schema
// version, raw/metadata.json, blocked-edges/*.yaml (unconditional blocks and
// conditional risks), channels/*.yaml and, when present, release signatures
// (signatures/sha256/<hex>/signature-<N>). It only reads and validates; the
// annotate and edges stages apply the result to a graph.
package graphdata

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

// MaxSupported is the newest graph-data schema this implementation knows.
var MaxSupported = version.MustParse("1.2.0")

// Category classifies a file that upstream skips instead of failing (spec §3.3).
type Category string

const (
	MissingExtension Category = "missing_extension"
	InvalidExtension Category = "invalid_extension"
	Unreadable       Category = "file"
	Deserialize      Category = "deserialize"
)

// Options controls how tolerant loading is.
type Options struct {
	// Skip lists the categories of bad files that are skipped with a
	// warning. Any other bad file fails the load.
	Skip map[Category]bool
}

// DefaultOptions skips only files upstream never meant to read (no or
// another extension, e.g. OWNERS, README.md, .yml) and fails on a .yaml file
// that does not parse: silently dropping a blocked edge or a channel because
// of a typo would publish a wrong graph.
func DefaultOptions() Options {
	return Options{Skip: map[Category]bool{MissingExtension: true, InvalidExtension: true}}
}

// UpstreamOptions skips every category, as a production graph-builder does.
func UpstreamOptions() Options {
	return Options{Skip: map[Category]bool{MissingExtension: true, InvalidExtension: true, Unreadable: true, Deserialize: true}}
}

// GraphData is a parsed graph-data tree.
type GraphData struct {
	SchemaVersion version.Version
	Raw           []RawMetadata
	Blocks        []Block
	Risks         []RiskFile
	Channels      []Channel
	// Signatures are the release signatures under signatures/ (nil when
	// the tree has none). Upstream's graph-builder ignores them; they are
	// published for clusters to verify releases against.
	Signatures Signatures
	// Digest is a sha256 over the paths and contents of every file read,
	// signatures included.
	Digest   string
	Warnings []*Problem
}

// RawMetadata is one entry of raw/metadata.json.
type RawMetadata struct {
	Version  version.Version
	Metadata map[string]string
}

// Block is an unconditional blocked edge: drop edges into To from sources
// matching From.
type Block struct {
	File string
	Line int
	To   version.Version
	From *regexp.Regexp
}

// RiskFile is a conditional risk: edges into To from sources matching From
// become conditional updates carrying Risk.
type RiskFile struct {
	Block
	Risk graph.Risk
}

// Channel is a channel file; membership is by version (spec §3.9).
type Channel struct {
	File     string
	Line     int
	Name     string
	Versions []version.Version
}

// Problem is a diagnostic tied to a file and, where known, a line.
type Problem struct {
	File     string
	Line     int
	Category Category
	Message  string
}

func (p *Problem) Error() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return loc + ": " + p.Message
}

// ChannelNames returns the distinct channel names, sorted.
func (gd *GraphData) ChannelNames() []string {
	var names []string
	for _, c := range gd.Channels {
		names = append(names, c.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// digester accumulates the content digest in path order.
type digester struct{ lines []string }

func (d *digester) add(path string, data []byte) {
	sum := sha256.Sum256(data)
	d.lines = append(d.lines, path+"\x00"+hex.EncodeToString(sum[:]))
}

func (d *digester) sum() string {
	slices.Sort(d.lines)
	sum := sha256.Sum256([]byte(strings.Join(d.lines, "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Load reads the graph-data tree rooted at fsys.
func Load(fsys fs.FS, opts Options) (*GraphData, error) {
	gd := &GraphData{}
	var dg digester
	l := &loader{fsys: fsys, opts: opts, gd: gd, dg: &dg}
	if err := l.schemaVersion(); err != nil {
		return nil, err
	}
	if err := l.rawMetadata(); err != nil {
		return nil, err
	}
	var errs []error
	if err := l.yamlDir("blocked-edges", (*loader).blockedEdge); err != nil {
		errs = append(errs, err)
	}
	if err := l.yamlDir("channels", (*loader).channel); err != nil {
		errs = append(errs, err)
	}
	l.graphDataSignatures()
	errs = append(errs, l.errs...)
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	gd.Digest = dg.sum()
	return gd, nil
}

// loadErrors lists every problem on its own line.
type loadErrors []error

func (e loadErrors) Error() string {
	var b strings.Builder
	for i, err := range e {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

func (e loadErrors) Unwrap() []error { return e }

func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return loadErrors(errs)
}

type loader struct {
	fsys fs.FS
	opts Options
	gd   *GraphData
	dg   *digester
	errs []error
	// prefix is prepended to paths in messages (LoadSignatures' directory).
	prefix string
	// regexps are the blocked edges' compiled patterns, by text: a
	// *regexp.Regexp is safe to share, and a few hundred patterns serve
	// thousands of files.
	regexps map[string]*regexp.Regexp
}

// report records a skippable problem: a warning if its category is skipped,
// an error otherwise.
func (l *loader) report(p *Problem) {
	if l.opts.Skip[p.Category] {
		l.gd.Warnings = append(l.gd.Warnings, p)
		return
	}
	l.errs = append(l.errs, p)
}
