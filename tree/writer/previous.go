package writer

import (
	"context"
	"time"
)

// PreviousLinker is a Staging that can take a file over from the
// generation it replaces on the word of that generation's index.json,
// without its bytes: an incremental generation (generator) links the
// files of graphs whose inputs did not change instead of rendering them
// again, so it neither renders, hashes nor reads them.
type PreviousLinker interface {
	// LinkPrevious links name from the previous generation when it is a
	// regular file of size bytes there, last modified at or before
	// notAfter, and reports whether it did; nothing is linked otherwise.
	// Its content is not compared: the caller vouches for it. With
	// notAfter the modification time of the previous index.json, a file
	// written in place since that generation was made is not linked
	// (unless its modification time was set back on purpose; a full
	// generation compares every byte).
	LinkPrevious(ctx context.Context, name string, size int64, notAfter time.Time) (bool, error)
	// PreviousModTime is the modification time of the previous
	// generation's regular file name; ok false when there is none.
	PreviousModTime(ctx context.Context, name string) (mtime time.Time, ok bool, err error)
}

func (d *treeFiles) LinkPrevious(ctx context.Context, name string, size int64, notAfter time.Time) (bool, error) {
	if d.previous == nil {
		return false, nil
	}
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return false, err
	}
	return d.previous.linkSized(dir, base, size, notAfter), nil
}

func (d *treeFiles) PreviousModTime(ctx context.Context, name string) (time.Time, bool, error) {
	if d.previous == nil {
		return time.Time{}, false, nil
	}
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return time.Time{}, false, err
	}
	t, ok := d.previous.modTime(dir, base)
	return t, ok, nil
}
