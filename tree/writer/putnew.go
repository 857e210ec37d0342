package writer

import "context"

// NewPutter is a Staging that can store a file without comparing it with
// the previous generation's file of the same name, which Put does: a
// caller that knows the previous file holds other bytes (its index.json
// lists another digest for it) saves reading it back. The file is written
// anew as Put writes a changed one: whatever the spare held under the
// name is removed first, and no inode of the previous tree or of the
// spare is written through.
type NewPutter interface {
	PutNew(ctx context.Context, name string, data []byte) error
}

func (d *treeFiles) PutNew(ctx context.Context, name string, data []byte) error {
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return err
	}
	return d.create(dir, base, data)
}
