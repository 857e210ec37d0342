// Package path finds the update path a cautious cluster admin would take
// from one release to another in a served channel × arch graph: what
// `upgraph path` prints.
//
// # The chosen path
//
// A path follows the graph's edges, unconditional ("edges") and
// conditional ("conditionalEdges"); a hop is conditional when its pair is
// not among the unconditional edges (a pair listed in both is
// unconditional: a cluster can take it without accepting a risk). Of all
// paths from the source to the target, Plan returns the best one under
// this order, criterion by criterion:
//
//  1. fewest hops: every hop is an update with its own maintenance
//     window, so a one-hop conditional path beats a two-hop unconditional
//     one (its risks are listed, for the admin to judge);
//  2. then fewest conditional hops, counted over the whole path, wherever
//     they are;
//  3. then newest intermediate releases: the intermediate versions (all
//     but the source and the target) are compared position by position
//     from the first hop, and at the first position where they differ the
//     higher one wins, by SemVer precedence (numeric fields as numbers, a
//     pre-release below its release, build metadata ignored; versions
//     still equal are ordered by their strings, byte by byte). Newer
//     intermediates carry more fixes, and an earlier hop is the one taken
//     first.
//
// The order is total, so the answer is unique. A source equal to the
// target gives an empty path; a version that is not in the graph is an
// *UnknownVersionError, and two versions without a path an ErrNoPath.
// Options.UnconditionalOnly leaves conditional edges out altogether.
//
// Plan is linear in the size of the graph (see Plan); testdata/vectors.json
// pins the definition down for every implementation (the web viewer has a
// JavaScript one), and testdata/README.md describes that file.
//
// # Graphs
//
// Decode reads a policy-engine graph document into a Graph, Union merges
// several (the channel and its EUS channels for `upgraph path --via-eus`),
// and Source reads the channel × arch graphs of a generated tree, from a
// directory or an http(s) host, or of a policy-engine endpoint.
package path
