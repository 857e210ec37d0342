// Package viewer is the static update-graph viewer written into every
// tree: index.html at the root and its scripts, styles and vendored
// libraries (cytoscape, dagre) under viewer/. It reads only files of the
// tree it is served from, by relative URL, so it works from upgraph
// serve, any static host or a mirror, without network access elsewhere.
//
// web/ holds the viewer's own sources; assets/ the minified third-party
// files, copied from the npm packages pinned in package-lock.json by
// build.sh and checked in, so building needs neither npm nor the network.
//
// generator.Render writes these files into the trees it renders; the
// serving layer serves them as any file of a tree. The package imports
// nothing of the serving layer, so that the pipeline library does not
// either; the browser tests, which serve a tree with package site, are in
// site/viewer.
package viewer

import (
	"embed"
	"io/fs"
	"path"

	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/tree/manifest"
)

//go:embed web/index.html web/app.js web/graph.js web/layout-worker.js web/style.css web/rollouts.js
//go:embed assets/*.js assets/*.txt
var embedded embed.FS

// Dir is the directory of a tree holding the viewer's assets; index.html
// is at the root.
const Dir = "viewer/"

// Files returns the viewer's files by their path relative to a tree's
// root: "index.html" and "viewer/…". Every call returns new slices.
func Files() map[string][]byte {
	out := map[string][]byte{}
	for _, dir := range []string{"web", "assets"} {
		entries, err := fs.ReadDir(embedded, dir)
		if err != nil {
			panic(err) // fixed at build time
		}
		for _, e := range entries {
			data, err := fs.ReadFile(embedded, path.Join(dir, e.Name()))
			if err != nil {
				panic(err)
			}
			name := Dir + e.Name()
			if dir == "web" && e.Name() == "index.html" {
				name = "index.html"
			}
			out[name] = data
		}
	}
	return out
}

// SummaryFile is the viewer's table of the tree's graphs and catalogs,
// written next to its other files: the architecture, channel, catalog and
// package pickers read it instead of index.json, whose list of every
// file's digest makes it megabytes in a real-scale tree. The viewer falls
// back to index.json when it is absent.
const SummaryFile = Dir + "graphs.json"

// ForRollouts tells whether a file of Files is for phased rollouts
// (docs/rollouts.md), shipped only in trees that have some, so that other
// trees keep the files they had.
func ForRollouts(name string) bool { return name == Dir+"rollouts.js" }

// summary is the content of SummaryFile: index.json's fields of the same
// names, without the files, counts, inputs and generation time, and
// without each graph's versions (the channel graph lists them) and each
// catalog's source, digests and counts. Nothing in
// it depends on when the tree was generated, so as every file but
// index.json it is byte-identical from the same inputs, and a publisher
// uploads it only when the graphs change.
type summary struct {
	Format   int            `json:"format"`
	Arches   []string       `json:"arches"`
	Channels []string       `json:"channels"`
	Graphs   []summaryGraph `json:"graphs"`
	// Catalogs are the tree's operator catalogs for the operators view:
	// index.json's catalogs without source, digests and counts. Omitted
	// when there are none, so a tree of release graphs keeps the file it
	// always had.
	Catalogs []summaryCatalog `json:"catalogs,omitempty"`
	// Rollouts are index.json's phased rollouts (docs/rollouts.md), for
	// the rollout progress and cluster picker; omitted without any.
	Rollouts *manifest.Rollouts `json:"rollouts,omitempty"`
}

// summaryCatalog is a catalog of SummaryFile: its name, its summary
// (operators/NAME/catalog.json) and its packages by name, the list the
// operators view filters.
type summaryCatalog struct {
	Name     string   `json:"name"`
	Path     string   `json:"path"`
	Packages []string `json:"packages"`
}

type summaryGraph struct {
	Channel          string `json:"channel"`
	Arch             string `json:"arch"`
	Path             string `json:"path"`
	Nodes            int    `json:"nodes"`
	Edges            int    `json:"edges"`
	ConditionalEdges int    `json:"conditionalEdges"`
}

// Summary renders SummaryFile for a tree's manifest, its graphs complete,
// as index.json is encoded: deterministic (the manifest's order), compact,
// no HTML escaping, ending in a newline.
func Summary(m *manifest.Manifest) ([]byte, error) {
	s := summary{Format: m.Format, Arches: m.Arches, Channels: m.Channels, Graphs: []summaryGraph{}}
	if s.Arches == nil {
		s.Arches = []string{}
	}
	if s.Channels == nil {
		s.Channels = []string{}
	}
	for _, g := range m.Graphs {
		s.Graphs = append(s.Graphs, summaryGraph{Channel: g.Channel, Arch: g.Arch, Path: g.Path,
			Nodes: g.Nodes, Edges: g.Edges, ConditionalEdges: g.ConditionalEdges})
	}
	for _, c := range m.Catalogs {
		pkgs := c.Packages
		if pkgs == nil {
			pkgs = []string{}
		}
		s.Catalogs = append(s.Catalogs, summaryCatalog{Name: c.Name, Path: c.Path, Packages: pkgs})
	}
	s.Rollouts = m.Rollouts
	return jsonw.Marshal(s)
}
