// Package airgap is `upgraph mirror`: it reads a tree wherever it lives
// (package tree) or a Cincinnati endpoint's graphs (mirror.OpenSource),
// keeps a selection of channels and arches, rewrites payloads to point at
// a local registry, renders the result again so that every digest and
// index.json describe what is written, and writes a tree directory or a
// deterministic bundle (tree/bundle). A tree's operator catalogs are
// carried too: rebuilt from their all.jsonl, restricted to the catalogs
// and packages selected, their bundle and related images rewritten by the
// same payload mirrors, and rendered as generate renders them
// (docs/operators.md).
package airgap
