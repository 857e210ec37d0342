//go:build !linux

package site

import "os"

// statFile is fstat through os.File.Stat. Without the inode number, a
// state is the size and mtime alone: still enough to see a write.
func statFile(f *os.File) (fileState, error) {
	fi, err := f.Stat()
	if err != nil {
		return fileState{}, err
	}
	return fileState{size: fi.Size(), mtime: fi.ModTime().UnixNano()}, nil
}
