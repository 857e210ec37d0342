// Package publish uploads a generated tree to S3 or an S3-compatible store,
// incrementally and in an order that keeps the published tree consistent
// for clients (`upgraph publish`).
//
// The plan compares the tree's index.json with the published one, object
// by object, by sha256: only new or changed objects are uploaded, so an
// unchanged tree costs one request, the GET of index.json, and no PUT.
// Each object carries its sha256 as user metadata (x-amz-meta-sha256),
// which lets a later run check an object without downloading it.
//
// Keys are not content-addressed (a generation rewrites graph files in
// place), so consistency comes from ordering: per-version graphs, the empty
// graph and signatures first, then the channel graphs, then index.json,
// and deletions only after index.json is replaced. A client reading
// index.json never finds an object it names missing, and one reading a
// channel graph never finds the per-version graph of one of its versions
// missing.
//
// Interrupted runs converge: before the first upload a run flags the
// published index.json as being replaced (a metadata-only copy onto
// itself) and a journal (JournalPath) records what is about to change; the
// next run finds the flag, reads the journal and checks those objects with
// a HEAD rather than trusting the old index.json about them, whatever tree
// it publishes. The flag is what spares an unchanged re-publish a look for
// the journal; the new index.json, uploaded last, comes without it.
//
// Guards refuse a tree that drops many of the published releases or
// channels, or an architecture (ErrShrink), and more deletions than
// allowed (ErrTooManyDeletes).
package publish
