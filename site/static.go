package site

import (
	"net/http"
	"path"
	"strings"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree/manifest"
)

// treeFile reports whether name (relative to the tree's root) is a file a
// browser may read at its own path, as from any static host: the viewer
// (index.html, viewer/…), index.json and the graph files it reads.
func treeFile(name string) bool {
	return name == "index.html" || name == manifest.FileName ||
		strings.HasPrefix(name, "viewer/") || strings.HasPrefix(name, "graph/") ||
		strings.HasPrefix(name, manifest.RolloutDir) // a phased-rollout bucket's graph files
}

// serveTree answers GET and HEAD for those files when the tree carries
// the viewer (index.html): "/" is index.html, "/index.json" the manifest
// of the generation served, any other path a file the manifest lists. It
// reports false, writing nothing, for any other request, so the caller
// answers 404 as before: a tree without the viewer exposes only the API.
func (h *Handler) serveTree(w http.ResponseWriter, r *http.Request) bool {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	if !treeFile(name) {
		return false
	}
	gen := h.acquire()
	if gen == nil {
		return false
	}
	defer gen.release()
	if _, viewer := gen.Manifest.Files["index.html"]; !viewer {
		return false
	}
	c := gen.index
	if name != manifest.FileName {
		if _, ok := gen.Manifest.Files[name]; !ok {
			return false
		}
		// Graph files answered as /graph answers them: from their gzip
		// copies.
		gzipGraph, gz, err := h.copyContent(gen, r, name)
		if gzipGraph {
			c = gz
		} else if err == nil {
			c, err = h.content(gen, name)
		}
		if err == nil && gzipGraph {
			if methodAllowed(w, r) {
				w.Header().Set("X-Content-Type-Options", "nosniff")
				writeGzipped(w, r, mediaTypeOf(name), c, h.opts.CacheControl)
			}
			return true
		}
		if err != nil {
			h.log.Error("reading tree file", "file", name, "err", err)
			writeError(w, errorAnswer(name, err))
			return true
		}
	}
	if methodAllowed(w, r) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.writeContent(w, r, mediaTypeOf(name), c, h.opts.CacheControl)
	}
	return true
}

// copyContent returns the content of name's gzip copy (written by
// generate) when r accepts gzip and the tree has one; gz is false
// otherwise.
func (h *Handler) copyContent(gen *Generation, r *http.Request, name string) (gz bool, c *content, err error) {
	gzName := precompress.Name(name)
	if _, ok := gen.Manifest.Files[gzName]; !ok || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
		return false, nil, nil
	}
	c, err = h.content(gen, gzName)
	return err == nil, c, err
}

func mediaTypeOf(name string) string {
	switch path.Ext(name) {
	case ".json":
		return MediaJSON
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".txt":
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}
