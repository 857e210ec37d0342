// Package viewer is the static update-graph viewer written into every
// tree: index.html at the root and its scripts, styles and vendored
// libraries (cytoscape, dagre) under viewer/. It reads only files of the
// tree it is served from, by relative URL, so it works from upgraph
// serve, any static host or a mirror, without network access elsewhere.
//
// web/ holds the viewer's own sources; assets/ the minified third-party
// files, copied from the npm packages pinned in package-lock.json by
// build.sh and checked in, so building needs neither npm nor the network.
package viewer

import (
	"embed"
	"io/fs"
	"path"
)

//go:embed web/index.html web/app.js web/graph.js web/layout-worker.js web/style.css
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
