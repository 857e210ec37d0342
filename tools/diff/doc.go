// Package diff compares two published update graphs semantically, channel
// × arch graph by channel × arch graph: what `upgraph diff OLD NEW` shows a
// graph-data reviewer before a change ships.
//
// Each side is a generated tree (a directory, or a static host serving
// one) or a policy-engine endpoint (`upgraph serve`, upstream). Only the
// channel graphs are compared: every per-version graph of a tree follows
// from its channel graph, so they cannot differ on their own.
//
// Differences are reported in graph terms, not bytes: nodes by version,
// edges as version pairs, conditional edges by the risk names on them,
// risks by name, and node payload and metadata key by key. Index
// positions, key order and grouping of conditional edges never show up.
package diff
