package writer

import "context"

// Carrier is implemented by stagings that carry files over from the
// generation they replace and can say so: a gzip copy is carried over
// with its file only when the file itself was (generator, precompress).
type Carrier interface {
	// PutCarried is Put, reporting whether the file was carried over
	// (linked from the previous generation, holding exactly data).
	PutCarried(ctx context.Context, name string, data []byte) (carried bool, err error)
	// OpenPrevious opens name in the previous generation and reads it
	// whole into buf (grown as needed): ok is false when it has no such
	// regular file. Nothing is linked until the caller, having checked
	// the bytes read, asks the file to (PreviousFile.Link): the inode
	// linked is the one read, read once. The caller closes it.
	OpenPrevious(ctx context.Context, name string, buf []byte) (f *PreviousFile, ok bool, err error)
	// PreviousDir is the directory of the previous generation, "" when
	// there is none.
	PreviousDir() string
}

// Comparer is implemented by stagings that let their caller compare a
// file with the previous generation's itself (generator: while hashing
// it, in one pass over its bytes) and then carry it over or write it:
// the file is carried over exactly when Put would, without Put's own
// read and compare.
type Comparer interface {
	// OpenPreviousSized is OpenPrevious of a regular file of size bytes:
	// ok is false, and nothing is read, when the previous generation has
	// no regular file of that name and size.
	OpenPreviousSized(ctx context.Context, name string, size int64, buf []byte) (f *PreviousFile, ok bool, err error)
	// PutNew writes a file that does not match the previous one.
	NewPutter
}

// PreviousFile is a file of the previous generation, open and read.
type PreviousFile struct {
	// Data is its bytes, as read when it was opened.
	Data []byte
	open previousFile
}

// Link makes the file read (that inode, not whatever now has its name)
// the new generation's file of the same name, and reports whether it
// could.
func (f *PreviousFile) Link() bool { return f.open.link() }

// Close releases the file; it may be called more than once.
func (f *PreviousFile) Close() { f.open.close() }

func (d *treeFiles) PutCarried(ctx context.Context, name string, data []byte) (bool, error) {
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return false, err
	}
	if d.previous != nil && d.previous.reuse(dir, base, data) {
		return true, nil
	}
	return false, d.create(dir, base, data)
}

func (d *treeFiles) OpenPrevious(ctx context.Context, name string, buf []byte) (*PreviousFile, bool, error) {
	if d.previous == nil {
		return nil, false, nil
	}
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return nil, false, err
	}
	open, data, ok := d.previous.open(dir, base, -1, buf)
	if !ok {
		return nil, false, nil
	}
	return &PreviousFile{Data: data, open: open}, true, nil
}

func (d *treeFiles) OpenPreviousSized(ctx context.Context, name string, size int64, buf []byte) (*PreviousFile, bool, error) {
	if d.previous == nil || size < 0 {
		return nil, false, nil
	}
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return nil, false, err
	}
	open, data, ok := d.previous.open(dir, base, size, buf)
	if !ok {
		return nil, false, nil
	}
	return &PreviousFile{Data: data, open: open}, true, nil
}

func (d *treeFiles) PreviousDir() string {
	if d.previous == nil {
		return ""
	}
	return d.previousDir
}
