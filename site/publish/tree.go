package publish

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/generator/manifest"
)

// tree is the generated tree being published, read through its manifest.
type tree struct {
	dir      string
	root     *os.Root
	index    []byte // index.json as published: the exact bytes read once
	manifest *manifest.Manifest
	channels map[string]bool // paths of channel × arch graphs
}

func openTree(dir string) (*tree, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	t := &tree{dir: dir, root: root, channels: map[string]bool{}}
	indexPath := filepath.Join(dir, manifest.FileName)
	if t.index, err = root.ReadFile(manifest.FileName); err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", indexPath, err)
	}
	if t.manifest, err = manifest.Parse(t.index); err != nil {
		root.Close()
		return nil, fmt.Errorf("%s: %w", indexPath, err)
	}
	// Object keys come from these names: slash-separated paths inside a
	// directory, so a manifest cannot write outside the prefix, over
	// index.json or over the journal (dot-files are upgraph's own).
	for name := range t.manifest.Files {
		if !fs.ValidPath(name) || name == manifest.FileName || strings.HasPrefix(path.Base(name), ".") || strings.HasPrefix(name, ".") {
			root.Close()
			return nil, fmt.Errorf("%s names %q, which is not a file of a tree", indexPath, name)
		}
	}
	for _, g := range t.manifest.Graphs {
		t.channels[g.Path] = true
	}
	return t, nil
}

func (t *tree) close() { t.root.Close() }

// read returns the content of p after checking it against the manifest: the
// sha256 stored with the object must describe the bytes uploaded.
func (t *tree) read(p string) ([]byte, error) {
	if p == manifest.FileName {
		return t.index, nil
	}
	want := t.manifest.Files[p]
	data, err := t.root.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(t.dir, p), err)
	}
	if got := manifest.SHA256(data); got != want.SHA256 || int64(len(data)) != want.Size {
		return nil, fmt.Errorf("%s: %d bytes with sha256 %s, index.json says %d bytes with %s (did the tree change since it was generated?)",
			filepath.Join(t.dir, p), len(data), got, want.Size, want.SHA256)
	}
	return data, nil
}

// phase orders uploads so no published object refers to one not yet
// there: leaves (per-version graphs, the empty graph, signatures) first,
// then the channel graphs that list their versions, then index.json, which
// lists everything.
func (t *tree) phase(p string) int {
	switch {
	case p == manifest.FileName:
		return phaseIndex
	case t.channels[p]:
		return phaseChannels
	}
	return phaseLeaves
}

const (
	phaseLeaves = iota
	phaseChannels
	phaseIndex
)

// dirs lists the top-level directories of the files of the manifests
// ("graph/", "schema/", "signatures/"): the part of the prefix a tree owns,
// where deletion looks for what the new tree no longer has.
func dirs(ms ...*manifest.Manifest) []string {
	set := map[string]bool{}
	for _, m := range ms {
		if m == nil {
			continue
		}
		for name := range m.Files {
			if d, _, ok := strings.Cut(name, "/"); ok {
				set[d+"/"] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}
