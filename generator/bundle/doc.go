// Package bundle carries generated trees to air-gapped sites: Mirror
// re-renders a tree (or an endpoint's graphs) for a selection of channels
// and arches with payloads pointing at a local registry, Write packs a
// tree into one deterministic .tar.gz with a sha256sum file beside it,
// Verify checks a tree or a bundle against its index.json, and Unpack
// extracts a verified bundle for serving.
//
// A bundle is a gzip-compressed tar whose first entry is index.json,
// followed by every file index.json lists, sorted by name. Entries are
// regular files, or hard links to an earlier entry with the same content
// (the tree's identical per-version graphs, stored once); nothing else.
// Modes, owners and times are fixed, so the same tree gives the same
// bytes.
package bundle
