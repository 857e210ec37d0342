package writer

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// treeDir is a directory of a tree being written, held open so that its
// files are created and linked by name relative to it: a generation
// writes tens of thousands of files into a few hundred directories, and
// looking up the whole path of each cost more than writing the small ones.
type treeDir struct {
	rel  string // slash-separated, relative to the tree, "" or ending in '/'
	path string
	fd   int // O_PATH
}

func openTreeDir(rel, path string) (*treeDir, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &treeDir{rel: rel, path: path, fd: fd}, nil
}

func (d *treeDir) close() { unix.Close(d.fd) }

// create writes a new file (O_EXCL) holding data.
func (d *treeDir) create(base string, data []byte) error {
	fd, err := unix.Openat(d.fd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &os.PathError{Op: "open", Path: filepath.Join(d.path, base), Err: err}
	}
	for len(data) > 0 && err == nil {
		var n int
		if n, err = unix.Write(fd, data); err == nil {
			data = data[n:]
		} else if err == unix.EINTR {
			err = nil
		}
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: filepath.Join(d.path, base), Err: err}
	}
	return nil
}

// link makes dst/base another name for src/srcBase.
func link(src *treeDir, srcBase string, dst *treeDir, base string) error {
	if err := unix.Linkat(src.fd, srcBase, dst.fd, base, 0); err != nil {
		return &os.LinkError{Op: "link", Old: filepath.Join(src.path, srcBase), New: filepath.Join(dst.path, base), Err: err}
	}
	return nil
}
