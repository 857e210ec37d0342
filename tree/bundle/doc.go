// Package bundle is the bundle format, one file that carries a tree to
// air-gapped sites: Write packs a tree into one deterministic .tar.gz with
// a sha256sum file beside it, Verify checks a tree directory or a bundle
// against its index.json, and Unpack extracts a verified bundle (package
// tree opens bundles through it).
//
// A bundle is a gzip-compressed tar whose first entry is index.json,
// followed by every file index.json lists, sorted by name. Entries are
// regular files, or hard links to an earlier entry with the same content
// (the tree's identical per-version graphs, stored once); nothing else.
// Modes, owners and times are fixed, so the same tree gives the same
// bytes.
package bundle
