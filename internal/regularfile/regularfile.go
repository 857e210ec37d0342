// Package regularfile reads an input file of a directory the user names
// (graph-data, release-metadata documents) with a bound: something else
// under a file's name, a named pipe that would block the run or a device
// that never ends, and a file larger than the bound are refused before
// any read.
package regularfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
)

// Read reads name of fsys, refusing with an error naming file (the name
// as the user knows it) what is not a regular file or is larger than
// limit bytes. listedRegular says the directory listing gave a regular
// file (fs.DirEntry.Type), which spares a stat; otherwise, a symbolic
// link among them, the name is looked up first, since opening a pipe
// blocks until a writer comes. A regular file costs the system calls of
// fs.ReadFile.
func Read(fsys fs.FS, name, file string, listedRegular bool, limit int64) ([]byte, error) {
	if !listedRegular {
		st, err := fs.Stat(fsys, name)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file (%s)", file, st.Mode().Type())
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if !st.Mode().IsRegular() { // replaced since it was listed
		return nil, fmt.Errorf("%s: not a regular file (%s)", file, st.Mode().Type())
	}
	if st.Size() > limit {
		return nil, &TooLargeError{File: file, Size: st.Size(), Limit: limit}
	}
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + bytes.MinRead) // one read, as fs.ReadFile
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if int64(buf.Len()) > limit {
		return nil, &TooLargeError{File: file, Size: -1, Limit: limit}
	}
	return buf.Bytes(), nil
}

// TooLargeError refuses a file of more than Limit bytes.
type TooLargeError struct {
	File  string
	Size  int64 // -1: grown past Limit while it was read
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: more than the %d bytes it may have", e.File, e.Limit)
	}
	return fmt.Sprintf("%s: %d bytes, more than the %d it may have", e.File, e.Size, e.Limit)
}
