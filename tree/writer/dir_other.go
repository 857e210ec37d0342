//go:build !linux

package writer

import (
	"os"
	"path/filepath"
)

// treeDir is a directory of a tree being written.
type treeDir struct {
	rel    string // slash-separated, relative to the tree, "" or ending in '/'
	path   string
	spare  *spareDir
	counts *linkCounts
}

func dirHandleLimit() int64 { return 0 }

func openTreeDir(rel, path string, _ *handleBudget) *treeDir { return &treeDir{rel: rel, path: path} }

func (d *treeDir) close() {}

// create writes a new file (O_EXCL) holding data.
func (d *treeDir) create(base string, data []byte) error {
	f, err := os.OpenFile(filepath.Join(d.path, base), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// link makes dst/base another name for src/srcBase.
func link(src *treeDir, srcBase string, dst *treeDir, base string) error {
	if err := os.Link(filepath.Join(src.path, srcBase), filepath.Join(dst.path, base)); err != nil {
		return err
	}
	dst.counts.addLinked()
	return nil
}
