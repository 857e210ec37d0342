package publish

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// source is the tree being published, read through its manifest.
type source struct {
	tree     tree.Tree
	index    []byte // index.json as published: the exact bytes read once
	manifest *manifest.Manifest
	channels map[string]bool // paths of channel × arch graphs
	// metadata are a signed tree's TUF files (tuf/, which index.json
	// does not list), by tree path; nil for an unsigned tree.
	metadata map[string][]byte
}

func newSource(t tree.Tree) (*source, error) {
	s := &source{tree: t, index: t.Index(), manifest: t.Manifest(), channels: map[string]bool{}}
	// Object keys come from these names: slash-separated paths inside a
	// directory, so a manifest cannot write outside the prefix, over
	// index.json or over the journal (dot-files are upgraph's own).
	for name := range s.manifest.Files {
		if !fs.ValidPath(name) || name == manifest.FileName || strings.HasPrefix(path.Base(name), ".") || strings.HasPrefix(name, ".") {
			return nil, fmt.Errorf("%s: %s names %q, which is not a file of a tree", t, manifest.FileName, name)
		}
	}
	for _, g := range s.manifest.Graphs {
		s.channels[g.Path] = true
	}
	return s, nil
}

// read returns the content of p, checked against the manifest (ReadFile
// does): the sha256 stored with the object must describe the bytes
// uploaded.
func (s *source) read(ctx context.Context, p string) ([]byte, error) {
	if p == manifest.FileName {
		return s.index, nil
	}
	if data, ok := s.metadata[p]; ok {
		return data, nil
	}
	return s.tree.ReadFile(ctx, p)
}

// phase orders uploads so no published object refers to one not yet
// there: leaves (per-version graphs, the empty graph, signatures) first,
// then the channel graphs that list their versions, then index.json, which
// lists everything.
//
// A signed tree's versioned metadata (N.targets.json …) goes with the
// leaves, under names no published metadata refers to yet, and
// timestamp.json after index.json, last: a reader verifying the
// signatures sees the old timestamp, whose targets refuse the new
// index.json, or the new one with everything it names in place; never a
// mix it accepts.
func (s *source) phase(p string) int {
	switch {
	case p == manifest.MetadataDir+"/timestamp.json":
		return phaseTimestamp
	case p == manifest.FileName:
		return phaseIndex
	case s.channels[p]:
		return phaseChannels
	}
	return phaseLeaves
}

const (
	phaseLeaves = iota
	phaseChannels
	phaseIndex
	phaseTimestamp
)

// dirs lists the top-level directories of the files of the manifests
// ("graph/", "schema/", "signatures/"): the part of the prefix a tree owns,
// where deletion looks for what the new tree no longer has.
func dirs(ms ...*manifest.Manifest) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for name := range filesOf(m) {
			if d, _, ok := strings.Cut(name, "/"); ok {
				set[d+"/"] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}
