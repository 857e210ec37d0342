package views

import (
	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/metas"
)

// allFile is all.jsonl: the blobs in load order, each followed by a
// newline, the bytes ContentDigest hashes.
const allFile = metas.AllFile

// metasFiles returns the catalog's blobs as catalogd serves them
// (catalog/metas): all.jsonl and the precomputed metas/… files, paths
// relative to the catalog's directory. Their Data share the bytes of one
// buffer per catalog and must not be modified.
func metasFiles(cfg *declcfg.DeclarativeConfig) []File {
	fs := metas.Files(cfg)
	out := make([]File, len(fs))
	for i, f := range fs {
		out[i] = File{Path: f.Path, Data: f.Data, Cuts: f.Cuts, Blobs: f.Lines, MetasPackage: f.Package}
	}
	return out
}
