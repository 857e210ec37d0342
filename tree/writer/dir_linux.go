package writer

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// treeDir is a directory of a tree being written, held open (while the
// tree's handle budget lasts) so that its files are created and linked by
// name relative to it: a generation writes tens of thousands of files
// into a few hundred directories, and looking up the whole path of each
// cost more than writing the small ones.
type treeDir struct {
	rel  string // slash-separated, relative to the tree, "" or ending in '/'
	path string
	fd   int // O_PATH, or -1: reached by path
	// spare is the spare's directory this one is (nil: a new directory,
	// or no spare): its names are settled before any is put.
	spare  *spareDir
	counts *linkCounts
}

// dirHandleLimit is the number of directory handles a tree may keep open:
// an eighth of the descriptors the process may open, from 16 to 1,024.
func dirHandleLimit() int64 {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil {
		return 16
	}
	return int64(min(max(lim.Cur/8, 16), 1024))
}

func openTreeDir(rel, path string, handles *handleBudget) *treeDir {
	d := &treeDir{rel: rel, path: path, fd: -1}
	if handles.take() {
		fd, err := retryEINTR(func() (int, error) {
			return unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		})
		if err == nil {
			d.fd = fd
		} else {
			handles.give() // the directory is reached by path
		}
	}
	return d
}

func (d *treeDir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// at is the directory and name to pass to an *at system call for base.
func (d *treeDir) at(base string) (int, string) {
	if d.fd >= 0 {
		return d.fd, base
	}
	return unix.AT_FDCWD, filepath.Join(d.path, base)
}

// create writes a new file (O_EXCL) holding data.
func (d *treeDir) create(base string, data []byte) error {
	dir, name := d.at(base)
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	})
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
	oldDir, oldName := src.at(srcBase)
	newDir, newName := dst.at(base)
	if err := linkat(oldDir, oldName, newDir, newName, 0); err != nil {
		return &os.LinkError{Op: "link", Old: filepath.Join(src.path, srcBase), New: filepath.Join(dst.path, base), Err: err}
	}
	dst.counts.addLinked()
	return nil
}

// retryEINTR runs call until it is not interrupted by a signal, as the
// os package does for its system calls (network file systems return
// EINTR).
func retryEINTR[T any](call func() (T, error)) (T, error) {
	for {
		if v, err := call(); err != unix.EINTR {
			return v, err
		}
	}
}

// linkat is unix.Linkat, retried when interrupted.
func linkat(oldDir int, oldName string, newDir int, newName string, flags int) error {
	_, err := retryEINTR(func() (struct{}, error) {
		return struct{}{}, unix.Linkat(oldDir, oldName, newDir, newName, flags)
	})
	return err
}
