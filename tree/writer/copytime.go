package writer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// TimeCopier is implemented by stagings that can give a file the
// modification time of another: a gzip copy (FILE.gz) carries its
// file's, so a server answering from either (nginx's gzip_static takes
// Last-Modified from the copy) tells clients the same time.
type TimeCopier interface {
	CopyTime(ctx context.Context, from, to string) error
}

// CopyTime sets to's modification (and access) time to from's; both are
// files already put.
func (d *treeFiles) CopyTime(ctx context.Context, from, to string) error {
	src, srcBase, err := d.dir(ctx, from)
	if err != nil {
		return err
	}
	dst, base, err := d.dir(ctx, to)
	if err != nil {
		return err
	}
	st, err := os.Stat(filepath.Join(src.path, srcBase))
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	target := filepath.Join(dst.path, base)
	// A copy carried over from the previous tree with its file has its
	// time already, and is then not touched: it is that tree's inode too.
	if cur, err := os.Stat(target); err == nil && cur.ModTime().Equal(st.ModTime()) {
		return nil
	}
	if err := os.Chtimes(target, st.ModTime(), st.ModTime()); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
