// Command olmoracle is operator-registry's own reading of file-based
// catalogs (FBC), for catalog/model's conformance test
// (catalog/model/oracle_test.go): for each FBC directory given it prints
// what operator-registry's code says, as deterministic JSON:
//
//   - the catalog's verdict: declcfg.ConvertToModel (which runs
//     model.Validate), i.e. what `opm validate DIR` accepts or rejects;
//   - per package, the verdict of ConvertToModel on that package's blobs
//     alone (its olm.package, olm.channel, olm.bundle and olm.deprecations
//     blobs), since opm's verdict is per catalog;
//   - per channel, model.Channel.Head() (the head or its error text);
//   - per channel, the typed edge set `opm alpha render-graph` draws:
//     declcfg.MermaidWriter.WriteChannels on the package's blobs alone,
//     its Mermaid text parsed back into edges (replaces, skips,
//     skipRange with its range; old → new; duplicates once; sorted).
//
// With --verdict-only first, only the load error or the catalog's verdict
// is computed (tools/mirrorset's soundness test validates 1,300
// filtered catalogs).
//
// It is its own module (go.mod beside this file) so that
// operator-registry's dependencies stay out of upgraph's; only tests run
// it. .ci/deps installs it; `olmoracle --version` names the digest of this
// module's sources (main.go, go.mod, go.sum), so a stale binary is noticed.
// README.md beside this file says how each result is computed.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/model"
)

//go:embed main.go
var srcMain []byte

//go:embed go.mod
var srcMod []byte

//go:embed go.sum
var srcSum []byte

const registryModule = "github.com/operator-framework/operator-registry"

// sourceDigest is the first 16 hex digits of the SHA-256 of main.go,
// go.mod and go.sum concatenated: what `cat main.go go.mod go.sum |
// sha256sum | cut -c1-16` prints in this directory.
func sourceDigest() string {
	h := sha256.New()
	h.Write(srcMain)
	h.Write(srcMod)
	h.Write(srcSum)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func registryVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == registryModule {
				return d.Version
			}
		}
	}
	return "unknown"
}

func main() {
	args := os.Args[1:]
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		fmt.Printf("olmoracle %s %s %s\n", sourceDigest(), registryModule, registryVersion())
		return
	}
	verdictOnly := len(args) > 0 && args[0] == "--verdict-only"
	if verdictOnly {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(os.Stderr, "usage: olmoracle [--verdict-only] FBC-DIR... | olmoracle --version")
		os.Exit(2)
	}
	out := Output{OperatorRegistry: registryVersion(), Catalogs: make([]Catalog, 0, len(args))}
	for _, dir := range args {
		if verdictOnly {
			c, _ := verdict(dir)
			out.Catalogs = append(out.Catalogs, c)
			continue
		}
		out.Catalogs = append(out.Catalogs, oracle(dir))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "olmoracle:", err)
		os.Exit(1)
	}
}

// Output is what olmoracle prints.
type Output struct {
	OperatorRegistry string    `json:"operatorRegistry"`
	Catalogs         []Catalog `json:"catalogs"`
}

// Catalog is operator-registry's reading of one FBC directory.
type Catalog struct {
	Dir string `json:"dir"`
	// LoadError is declcfg.LoadFS's error; nothing else is set then.
	LoadError string `json:"loadError,omitempty"`
	// Verdict is ConvertToModel of the whole catalog (opm validate).
	Verdict *Verdict `json:"verdict,omitempty"`
	// RenderGraphError is WriteChannels' error on the whole catalog
	// (render-graph fails as a whole when any bundle's version does not
	// parse); edges are computed per package regardless.
	RenderGraphError string    `json:"renderGraphError,omitempty"`
	Packages         []Package `json:"packages,omitempty"`
}

// Verdict is ConvertToModel's result.
type Verdict struct {
	Valid bool `json:"valid"`
	// Error is the error text, made deterministic: model.Validate's error
	// tree (whose sub-errors come in map order) is re-rendered in opm's
	// format with the children of every node sorted.
	Error string `json:"error,omitempty"`
	// Messages are the tree's leaf messages (the whole text for a
	// conversion error), sorted and unique.
	Messages []string `json:"messages,omitempty"`
}

// Package is one package name: every name an olm.package blob declares
// or a channel, bundle or deprecation blob refers to.
type Package struct {
	Name string `json:"name"`
	// Declared says some olm.package blob has this name.
	Declared bool `json:"declared"`
	// Verdict is ConvertToModel of this package's blobs alone.
	Verdict Verdict `json:"verdict"`
	// RenderGraphError is WriteChannels' error on this package's blobs
	// (no edges then).
	RenderGraphError string `json:"renderGraphError,omitempty"`
	// Channels are the package's olm.channel blobs in load order.
	Channels []Channel `json:"channels"`
}

// Channel is one olm.channel blob.
type Channel struct {
	Name string `json:"name"`
	// Head is model.Channel.Head()'s bundle name; HeadError its error.
	Head      string `json:"head,omitempty"`
	HeadError string `json:"headError,omitempty"`
	// Edges are render-graph's edges of the channel, sorted by from, to,
	// type and range, each once.
	Edges []Edge `json:"edges"`
}

// Edge is an upgrade edge as render-graph draws it: From the bundle a
// cluster runs, To the bundle it may move to.
type Edge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Type  string `json:"type"` // replaces, skips or skipRange
	Range string `json:"range,omitempty"`
}

func oracle(dir string) Catalog {
	out, cfg := verdict(dir)
	if cfg == nil {
		return out
	}
	if _, err := renderGraph(*cfg); err != nil {
		out.RenderGraphError = err.Error()
	}
	for _, name := range packageNames(cfg) {
		out.Packages = append(out.Packages, onePackage(name, filterPackage(cfg, name)))
	}
	return out
}

// verdict is oracle without the per-package results and render-graph:
// the load error, or ConvertToModel's verdict on the whole catalog and
// the catalog loaded (nil after a load error).
func verdict(dir string) (Catalog, *declcfg.DeclarativeConfig) {
	out := Catalog{Dir: dir}
	// One loader goroutine: blobs in walk order, so the results (the
	// first conversion error, "last channel" effects) do not depend on
	// scheduling. opm loads files concurrently; within a file the order
	// is the same.
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir), declcfg.WithConcurrency(1))
	if err != nil {
		out.LoadError = err.Error()
		return out, nil
	}
	v := convert(*cfg)
	out.Verdict = &v
	return out, cfg
}

// packageNames lists every package name the catalog declares or refers
// to, sorted.
func packageNames(cfg *declcfg.DeclarativeConfig) []string {
	var names []string
	for _, p := range cfg.Packages {
		names = append(names, p.Name)
	}
	for _, c := range cfg.Channels {
		names = append(names, c.Package)
	}
	for _, b := range cfg.Bundles {
		names = append(names, b.Package)
	}
	for _, d := range cfg.Deprecations {
		names = append(names, d.Package)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// filterPackage is the catalog's blobs of package name (olm.package
// blobs named name; channel, bundle and deprecation blobs whose package
// is name), in load order. Other schemas are left out: ConvertToModel
// and WriteChannels ignore them.
func filterPackage(cfg *declcfg.DeclarativeConfig, name string) declcfg.DeclarativeConfig {
	var out declcfg.DeclarativeConfig
	for _, p := range cfg.Packages {
		if p.Name == name {
			out.Packages = append(out.Packages, p)
		}
	}
	for _, c := range cfg.Channels {
		if c.Package == name {
			out.Channels = append(out.Channels, c)
		}
	}
	for _, b := range cfg.Bundles {
		if b.Package == name {
			out.Bundles = append(out.Bundles, b)
		}
	}
	for _, d := range cfg.Deprecations {
		if d.Package == name {
			out.Deprecations = append(out.Deprecations, d)
		}
	}
	return out
}

func onePackage(name string, cfg declcfg.DeclarativeConfig) Package {
	p := Package{Name: name, Declared: len(cfg.Packages) > 0, Channels: []Channel{}}
	m, err := declcfg.ConvertToModel(cfg)
	p.Verdict = verdictOf(err)
	edges, err := renderGraph(cfg)
	if err != nil {
		p.RenderGraphError = err.Error()
	}
	for _, c := range cfg.Channels {
		ch := Channel{Name: c.Name, Edges: edges[c.Name]}
		if ch.Edges == nil {
			ch.Edges = []Edge{}
		}
		head, err := channelHead(m, name, c)
		if err != nil {
			ch.HeadError = err.Error()
		} else {
			ch.Head = head.Name
		}
		p.Channels = append(p.Channels, ch)
	}
	return p
}

// channelHead is model.Channel.Head() of the channel: of the converted
// model when ConvertToModel succeeded, otherwise of a model.Channel built
// from the blob's entries as ConvertToModel builds it (Head reads only
// the bundles' names, replaces and skips), so invalid packages get a
// head too.
func channelHead(m model.Model, pkg string, c declcfg.Channel) (*model.Bundle, error) {
	if m != nil {
		if mp := m[pkg]; mp != nil {
			if mc := mp.Channels[c.Name]; mc != nil {
				return mc.Head()
			}
		}
	}
	mc := model.Channel{Name: c.Name, Bundles: map[string]*model.Bundle{}}
	for _, e := range c.Entries {
		mc.Bundles[e.Name] = &model.Bundle{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange}
	}
	return mc.Head()
}

func convert(cfg declcfg.DeclarativeConfig) Verdict {
	_, err := declcfg.ConvertToModel(cfg)
	return verdictOf(err)
}

func verdictOf(err error) Verdict {
	if err == nil {
		return Verdict{Valid: true}
	}
	root := parseTree(err.Error())
	var leaves []string
	root.leaves(&leaves)
	slices.Sort(leaves)
	return Verdict{Error: strings.TrimSpace(root.render()), Messages: slices.Compact(leaves)}
}

// node is one message of model's validation error tree.
type node struct {
	msg      string
	children []*node
}

// parseTree reads model.validationError's text back into a tree: the
// first line is the root; every other line is 4 runes of "├── " or "└── "
// per level, after 4 runes of "│   " or "    " per enclosing level. A
// node with children ends with ":". A line without that prefix continues
// the previous message (a sub-error whose text has a newline). Any other
// error (ConvertToModel's conversion errors) is a single node.
func parseTree(s string) *node {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	root := &node{msg: lines[0]}
	stack := []*node{root}
	last := root
	for _, line := range lines[1:] {
		depth, rest := 0, line
		for {
			var ok bool
			for _, p := range []string{"│   ", "    ", "├── ", "└── "} {
				if strings.HasPrefix(rest, p) {
					rest, ok = rest[len(p):], true
					depth++
					break
				}
			}
			if !ok {
				break
			}
		}
		if depth == 0 || depth > len(stack) {
			last.msg += "\n" + line
			continue
		}
		n := &node{msg: rest}
		parent := stack[depth-1]
		parent.children = append(parent.children, n)
		stack = append(stack[:depth], n)
		last = n
	}
	root.normalize()
	return root
}

func (n *node) normalize() {
	if len(n.children) > 0 {
		n.msg = strings.TrimSuffix(n.msg, ":")
	}
	for _, c := range n.children {
		c.normalize()
	}
	slices.SortFunc(n.children, func(a, b *node) int { return cmp.Compare(a.render(), b.render()) })
}

func (n *node) leaves(out *[]string) {
	if len(n.children) == 0 {
		*out = append(*out, n.msg)
	}
	for _, c := range n.children {
		c.leaves(out)
	}
}

// render writes the tree as model.validationError does.
func (n *node) render() string {
	var b strings.Builder
	n.write(&b, "", "")
	return b.String()
}

func (n *node) write(b *strings.Builder, first, rest string) {
	b.WriteString(first + n.msg)
	if len(n.children) > 0 {
		b.WriteString(":")
	}
	b.WriteString("\n")
	for i, c := range n.children {
		if i == len(n.children)-1 {
			c.write(b, rest+"└── ", rest+"    ")
		} else {
			c.write(b, rest+"├── ", rest+"│   ")
		}
	}
}

// renderGraph runs render-graph's writer (declcfg.MermaidWriter, as `opm
// alpha render-graph` builds it without filters) on cfg and parses its
// edges back, per channel name. WriteChannels sorts cfg.Channels in
// place, so it gets a copy.
func renderGraph(cfg declcfg.DeclarativeConfig) (map[string][]Edge, error) {
	cfg.Channels = slices.Clone(cfg.Channels)
	var buf bytes.Buffer
	w := declcfg.NewMermaidWriter(declcfg.WithV0Semantics(false))
	if err := w.WriteChannels(cfg, &buf); err != nil {
		return nil, err
	}
	return parseMermaid(buf.Bytes())
}

// parseMermaid reads WriteChannels' output back: lines
// `  %% package "PKG"`, `    %% channel "CH"` and edges
// `      PKG-CH-FROM["FROM"]-- LABEL --> PKG-CH-TO["TO"]` (indented by 2,
// 4 and 6 spaces), with LABEL one of skip, replace or "skipRange(RANGE)". Names are
// written with %q; each node ID is the channel's ID, "-" and the name.
// Every line holding "]-- " must parse as an edge.
func parseMermaid(text []byte) (map[string][]Edge, error) {
	out := map[string][]Edge{}
	seen := map[string]map[Edge]bool{}
	var pkg, ch string
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, `  %% package `):
			v, err := strconv.Unquote(strings.TrimPrefix(line, `  %% package `))
			if err != nil {
				return nil, fmt.Errorf("render-graph output: package line %q: %v", line, err)
			}
			pkg, ch = v, ""
		case strings.HasPrefix(line, `    %% channel `):
			v, err := strconv.Unquote(strings.TrimPrefix(line, `    %% channel `))
			if err != nil {
				return nil, fmt.Errorf("render-graph output: channel line %q: %v", line, err)
			}
			ch = v
			if seen[ch] == nil {
				seen[ch] = map[Edge]bool{}
			}
		case strings.Contains(line, `"]-- `):
			e, err := parseEdge(line, pkg+"-"+ch+"-")
			if err != nil {
				return nil, fmt.Errorf("render-graph output: package %q channel %q: %v", pkg, ch, err)
			}
			if !seen[ch][e] {
				seen[ch][e] = true
				out[ch] = append(out[ch], e)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, es := range out {
		slices.SortFunc(es, func(a, b Edge) int {
			return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Range, b.Range))
		})
	}
	return out, nil
}

// parseEdge parses `      PREFIXFROM["FROM"]-- LABEL --> PREFIXTO["TO"]`.
func parseEdge(line, prefix string) (Edge, error) {
	bad := func(why string) (Edge, error) { return Edge{}, fmt.Errorf("edge line %q: %s", line, why) }
	rest, ok := strings.CutPrefix(line, "      "+prefix)
	if !ok {
		return bad("no node ID prefix " + strconv.Quote(prefix))
	}
	// FROM["FROM"]: the first split where the quoted name repeats the ID's.
	from, after := "", ""
	for i := 0; i < len(rest); i++ {
		if !strings.HasPrefix(rest[i:], `["`) {
			continue
		}
		q := strconv.Quote(rest[:i])
		if strings.HasPrefix(rest[i+1:], q+"]-- ") {
			from, after = rest[:i], rest[i+1+len(q)+len("]-- "):]
			break
		}
	}
	if after == "" {
		return bad("no source node")
	}
	// LABEL --> PREFIXTO["TO"]: the first " --> PREFIX" whose remainder is
	// a whole node.
	sep := " --> " + prefix
	to, label := "", ""
	for off := 0; ; {
		j := strings.Index(after[off:], sep)
		if j < 0 {
			break
		}
		j += off
		tail := after[j+len(sep):]
		if k := strings.Index(tail, `["`); k >= 0 && tail[k+1:] == strconv.Quote(tail[:k])+"]" {
			to, label = tail[:k], after[:j]
			break
		}
		off = j + 1
	}
	if label == "" {
		return bad("no target node")
	}
	switch {
	case label == "replace":
		return Edge{From: from, To: to, Type: "replaces"}, nil
	case label == "skip":
		return Edge{From: from, To: to, Type: "skips"}, nil
	case strings.HasPrefix(label, `"skipRange(`) && strings.HasSuffix(label, `)"`):
		return Edge{From: from, To: to, Type: "skipRange", Range: label[len(`"skipRange(`) : len(label)-len(`)"`)]}, nil
	}
	return bad("unknown label " + strconv.Quote(label))
}
