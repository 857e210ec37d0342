package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Kind names a document format upgraph reads or writes.
type Kind string

const (
	// ReleaseMetadata is a release-metadata document of a metadata:DIR
	// release source (the image's release-metadata plus payload, arch and
	// manifestref).
	ReleaseMetadata Kind = "release-metadata"
	// Channel is a graph-data channels/*.yaml (or internal-channels/) file.
	Channel Kind = "channel"
	// BlockedEdge is a graph-data blocked-edges/*.yaml file: an
	// unconditional block or a conditional risk.
	BlockedEdge Kind = "blocked-edge"
	// RawMetadata is graph-data's raw/metadata.json.
	RawMetadata Kind = "raw-metadata"
	// Graph is a policy-engine graph response, as upgraph writes it to
	// graph/<arch>/<channel>.json and its per-version files.
	Graph Kind = "graph"
	// GraphBuilder is the unversioned graph-builder form (graph:FILE
	// sources, the conformance fixtures): +arch versions, abstract nodes.
	GraphBuilder Kind = "graph-gb"
	// Index is upgraph's output manifest, index.json.
	Index Kind = "index"
	// ViewerGraphs is the viewer's table of a tree's graphs,
	// viewer/graphs.json: index.json's format, arches, channels and graphs
	// without their versions.
	ViewerGraphs Kind = "viewer-graphs"
	// OperatorCatalog is an operator catalog's summary,
	// operators/<catalog>/catalog.json.
	OperatorCatalog Kind = "operator-catalog"
	// OperatorChannelGraph is a package × channel graph,
	// operators/<catalog>/graph/<package>/<channel>.json.
	OperatorChannelGraph Kind = "operator-channel-graph"
	// OperatorPackageGraph is a package's cross-channel view,
	// operators/<catalog>/graph/<package>.json.
	OperatorPackageGraph Kind = "operator-package-graph"
	// OperatorNext is a per installed bundle answer,
	// operators/<catalog>/next/<package>/<channel>/<bundle>.json.
	OperatorNext Kind = "operator-next"
	// Rollout is a graph-data rollouts/*.yaml file (docs/rollouts.md).
	Rollout Kind = "rollout"
)

// Kinds lists every kind Validate accepts.
func Kinds() []Kind {
	return []Kind{ReleaseMetadata, Channel, BlockedEdge, RawMetadata, Graph, GraphBuilder, Index, ViewerGraphs,
		OperatorCatalog, OperatorChannelGraph, OperatorPackageGraph, OperatorNext, Rollout}
}

// ForCatalogs reports whether the schema file name (a key of Files)
// describes operator catalog files only: trees publish it only when they
// have catalogs, so that a tree of release graphs keeps the files it
// always had.
func ForCatalogs(name string) bool { return strings.HasPrefix(name, "operator-") }

// ForRollouts tells whether a schema file of Files is for phased rollouts,
// shipped only in trees that have some (so other trees keep their bytes).
func ForRollouts(name string) bool { return name == Rollout.FileName() }

// FileName is the name of the kind's schema file (in Files and at
// BaseURL).
func (k Kind) FileName() string { return string(k) + ".schema.json" }

// BaseURL is where the schema files are published; each file's $id is
// BaseURL + its name. References between the files are relative, so a copy
// of all of Files in one directory resolves on its own.
const BaseURL = "https://upgraph.dev/schema/"

// Problem is one schema violation: Pointer is the JSON pointer of the
// offending value ("" = document root), Line its 1-based line in the input
// (0 if unknown).
type Problem struct {
	Pointer string
	Line    int
	Message string
}

func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", p.Line, ptr, p.Message)
	}
	return ptr + ": " + p.Message
}

//go:embed *.schema.json
var files embed.FS

// Files returns the schema files by name, for publishing into output trees.
// The map and slices are the caller's.
func Files() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		data, err := fs.ReadFile(files, e.Name())
		if err != nil {
			panic(err) // embedded at build time
		}
		out[e.Name()] = data
	}
	return out
}

// compiled holds the schemas, compiled once on first use, and the raw
// schema documents, in which errorMessage annotations are looked up.
type compiled struct {
	schemas map[Kind]*jsonschema.Schema
	docs    map[string]any // by $id
}

var (
	once     sync.Once
	state    *compiled
	stateErr error
)

func load() (*compiled, error) {
	once.Do(func() { state, stateErr = compile() })
	return state, stateErr
}

func compile() (*compiled, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s is not embedded (no network access)", s)
	}
	st := &compiled{schemas: map[Kind]*jsonschema.Schema{}, docs: map[string]any{}}
	for name, data := range Files() {
		if err := c.AddResource(BaseURL+name, bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		st.docs[BaseURL+name] = doc
	}
	for _, k := range Kinds() {
		s, err := c.Compile(BaseURL + k.FileName())
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", k, err)
		}
		st.schemas[k] = s
	}
	return st, nil
}

// Validate checks a JSON document. The error is only for input that is not
// JSON or an unknown kind; violations are the problems, sorted by line.
func Validate(kind Kind, data []byte) ([]Problem, error) {
	st, sch, err := schemaFor(kind)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		line, _ := lineCol(data, dec.InputOffset())
		return nil, fmt.Errorf("line %d: data after the JSON document", line)
	}
	ps := st.check(kind, sch, v)
	loc := scanJSON(data, ps)
	ps = append(ps, loc.duplicates...)
	for i := range ps {
		if ps[i].Line == 0 {
			ps[i].Line = loc.line(ps[i].Pointer)
		}
	}
	return finish(ps), nil
}

// ValidateYAML checks a YAML document (channels, blocked edges) by
// converting it with yaml.v3, and maps each problem's pointer back to a
// line: for a mapping member the line of its key. The error is only for
// input that is not YAML or an unknown kind.
func ValidateYAML(kind Kind, data []byte) ([]Problem, error) {
	st, sch, err := schemaFor(kind)
	if err != nil {
		return nil, err
	}
	v, lines, ps, err := fromYAML(data)
	if err != nil {
		return nil, err
	}
	ps = append(ps, st.check(kind, sch, v)...)
	for i := range ps {
		if ps[i].Line == 0 {
			ps[i].Line = lineOfPointer(lines, ps[i].Pointer)
		}
	}
	return finish(ps), nil
}

func schemaFor(kind Kind) (*compiled, *jsonschema.Schema, error) {
	st, err := load()
	if err != nil {
		return nil, nil, err
	}
	sch, ok := st.schemas[kind]
	if !ok {
		return nil, nil, fmt.Errorf("schema: unknown kind %q", kind)
	}
	return st, sch, nil
}

// check runs the schema and the checks JSON Schema cannot express.
func (st *compiled) check(kind Kind, sch *jsonschema.Schema, v any) []Problem {
	var ps []Problem
	target := v
	if kind == Graph || kind == GraphBuilder {
		target = withoutPlainEdges(v)
	}
	if err := sch.Validate(target); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []Problem{{Message: err.Error()}}
		}
		ps = st.problems(ve, v, ps)
	}
	switch kind {
	case Graph, GraphBuilder:
		ps = append(ps, checkGraph(v)...)
	case Index:
		ps = append(ps, checkIndex(v)...)
	case ViewerGraphs:
		ps = append(ps, checkViewerGraphs(v)...)
	case OperatorChannelGraph:
		ps = append(ps, checkOperatorChannelGraph(v)...)
	case OperatorPackageGraph:
		ps = append(ps, checkOperatorPackageGraph(v)...)
	}
	return ps
}

// withoutPlainEdges returns the graph with an empty edge list when every
// edge is plainly valid ([i, j] with non-negative integers, what the edge
// schema requires), so the schema engine, which allocates some sixty times
// per edge, does not walk tens of thousands of them. Any other edge list is
// left for the schema to report on.
func withoutPlainEdges(v any) any {
	g, ok := v.(map[string]any)
	if !ok {
		return v
	}
	edges, ok := g["edges"].([]any)
	if !ok || len(edges) == 0 {
		return v
	}
	for _, e := range edges {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			return v
		}
		for _, x := range pair {
			n, ok := x.(json.Number)
			if !ok {
				return v
			}
			if _, err := strconv.ParseUint(string(n), 10, 64); err != nil {
				return v
			}
		}
	}
	short := make(map[string]any, len(g))
	for k, x := range g {
		short[k] = x
	}
	short["edges"] = []any{}
	return short
}

// problems flattens a validation error into its leaves.
func (st *compiled) problems(ve *jsonschema.ValidationError, doc any, ps []Problem) []Problem {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			ps = st.problems(c, doc, ps)
		}
		return ps
	}
	ptr := pointer(ve.InstanceLocation)
	keyword, custom := st.errorMessage(ve.AbsoluteKeywordLocation)
	msg := ve.Message
	if custom != "" {
		if strings.Contains(custom, "%s") {
			msg = strings.Replace(custom, "%s", msg, 1)
		} else {
			msg = custom
		}
	}
	switch {
	case keyword == "additionalProperties" && custom == "":
		// One problem per property, pointing at it.
		if obj, ok := resolve(doc, ptr).(map[string]any); ok {
			var names []string
			for k := range obj {
				if strings.Contains(ve.Message, quote(k)) {
					names = append(names, k)
				}
			}
			if len(names) > 0 {
				slices.Sort(names)
				for _, k := range names {
					ps = append(ps, Problem{Pointer: ptr + "/" + escapeToken(k), Message: fmt.Sprintf("property %q is not allowed here", k)})
				}
				return ps
			}
		}
	case msg == "not allowed" && ptr != "":
		msg = fmt.Sprintf("property %q is not allowed here", lastToken(ptr))
	}
	return append(ps, Problem{Pointer: ptr, Message: msg})
}

// errorMessage finds the errorMessage annotation (ajv-errors style: a
// string for every keyword of its schema, or an object by keyword) that
// applies to the failing keyword at loc.
func (st *compiled) errorMessage(loc string) (keyword, msg string) {
	base, frag, _ := strings.Cut(loc, "#")
	doc, ok := st.docs[base]
	if !ok || frag == "" {
		return "", ""
	}
	toks := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	keyword = toks[len(toks)-1]
	parent := doc
	for _, t := range toks[:len(toks)-1] {
		switch p := parent.(type) {
		case map[string]any:
			parent = p[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(p) {
				return keyword, ""
			}
			parent = p[i]
		default:
			return keyword, ""
		}
	}
	obj, _ := parent.(map[string]any)
	switch em := obj["errorMessage"].(type) {
	case string:
		return keyword, em
	case map[string]any:
		s, _ := em[keyword].(string)
		return keyword, s
	}
	return keyword, ""
}

// finish sorts problems by line, then pointer, and drops repeats.
func finish(ps []Problem) []Problem {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Pointer, b.Pointer)
	})
	out := ps[:0]
	seen := map[Problem]bool{}
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pointer turns the library's instance location (tokens URL-path-escaped
// on top of JSON pointer escaping) into a plain JSON pointer.
func pointer(loc string) string {
	if loc == "" || !strings.Contains(loc, "%") {
		return loc
	}
	toks := strings.Split(loc, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return strings.Join(toks, "/")
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func lastToken(ptr string) string {
	return unescapeToken(ptr[strings.LastIndexByte(ptr, '/')+1:])
}

// resolve returns the value at ptr in doc, or nil.
func resolve(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	for _, t := range strings.Split(ptr[1:], "/") {
		switch d := doc.(type) {
		case map[string]any:
			doc = d[unescapeToken(t)]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(d) {
				return nil
			}
			doc = d[i]
		default:
			return nil
		}
	}
	return doc
}

// quote is how the library quotes property names in its messages.
func quote(s string) string {
	s = fmt.Sprintf("%q", s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// jsonError adds the line and column to a decoding error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
	}
	if off < 0 {
		return fmt.Errorf("not JSON: %w", err)
	}
	line, col := lineCol(data, max(0, off-1))
	return fmt.Errorf("not JSON: line %d, column %d: %w", line, col, err)
}

// lineCol converts a byte offset into 1-based line and column numbers.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	return bytes.Count(before, []byte{'\n'}) + 1, int(off) - bytes.LastIndexByte(before, '\n')
}
