package sign

import (
	"context"
	"fmt"

	"github.com/upgraph/upgraph/tree"
)

// VerifyTree checks the tree at location against its index.json, as
// upgraph verify does: with check (nil: unsigned), its signed metadata
// first, and a file that does not match index.json is then refused as a
// Tamper (index.json is what targets signs). It returns the line verify
// prints: what the location is, the signed versions, the counts and the
// generation time.
func VerifyTree(ctx context.Context, location string, opts tree.Options, check *Check) (string, error) {
	signed := ""
	if check != nil {
		// The metadata first, and index.json against targets: a refusal
		// names the threat. The files are read once, by tree.Verify.
		v, err := check.VerifyLocation(ctx, location, opts, false)
		if err != nil {
			return "", err
		}
		signed = fmt.Sprintf(", signed (root %d, targets %d, snapshot %d, timestamp %d)", v.Root, v.Targets, v.Snapshot, v.Timestamp)
	}
	loc, sum, err := tree.Verify(ctx, location, opts)
	if err != nil && check != nil {
		return "", fmt.Errorf("%s refused (%s, TUF §5.7.3): files differ from the signed targets (a changed file, or one of another generation): %w", location, Tamper, err)
	}
	if err != nil {
		return "", err
	}
	m := sum.Manifest
	what := loc.Kind.String()
	switch {
	case loc.Kind == tree.KindDir:
		what = "tree"
	case sum.Checksummed:
		what = "bundle, checksum file matches"
	case loc.Kind == tree.KindBundle:
		what = "bundle, no checksum file"
	}
	return fmt.Sprintf("ok %s (%s%s): %d files, %d bytes, %d channel × arch graphs, generated %s\n",
		location, what, signed, m.Counts.Files, m.Counts.Bytes, m.Counts.Graphs, m.GeneratedAt), nil
}

// Verifier is c.Verify as a callback, for the libraries that take one
// (files: every file's digest checked too); nil for a nil c (no --trust),
// which verifies nothing.
func (c *Check) Verifier(files bool) func(context.Context, tree.Tree) error {
	if c == nil {
		return nil
	}
	return func(ctx context.Context, t tree.Tree) error {
		_, err := c.Verify(ctx, t, files)
		return err
	}
}
