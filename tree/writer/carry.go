package writer

import (
	"context"
	"fmt"
)

// Carrier is implemented by stagings that carry files over from the
// generation they replace and can say so: a gzip copy is carried over
// with its file only when the file itself was (generator, precompress).
type Carrier interface {
	// PutCarried is Put, reporting whether the file was carried over
	// (linked from the previous generation, holding exactly data).
	PutCarried(ctx context.Context, name string, data []byte) (carried bool, err error)
	// CarryOver links name from the previous generation when accept
	// approves its bytes, and returns them; ok is false, with nothing
	// linked, when there is no such file or accept refuses it.
	CarryOver(ctx context.Context, name string, accept func(old []byte) bool) (old []byte, ok bool, err error)
	// Previous returns the bytes of name in the previous generation,
	// ok false when it has no such regular file; nothing is linked.
	Previous(ctx context.Context, name string) (old []byte, ok bool, err error)
	// PreviousDir is the directory of the previous generation, "" when
	// there is none.
	PreviousDir() string
}

func (d *treeFiles) PutCarried(ctx context.Context, name string, data []byte) (bool, error) {
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return false, err
	}
	if d.previous != nil && d.previous.reuse(dir, base, data) {
		return true, nil
	}
	if err := dir.create(base, data); err != nil {
		return false, fmt.Errorf("output: %w", err)
	}
	return false, nil
}

func (d *treeFiles) CarryOver(ctx context.Context, name string, accept func([]byte) bool) ([]byte, bool, error) {
	if d.previous == nil {
		return nil, false, nil
	}
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return nil, false, err
	}
	old, ok := d.previous.carry(dir, base, accept, true)
	return old, ok, nil
}

func (d *treeFiles) Previous(ctx context.Context, name string) ([]byte, bool, error) {
	if d.previous == nil {
		return nil, false, nil
	}
	dir, base, err := d.dir(ctx, name)
	if err != nil {
		return nil, false, err
	}
	old, ok := d.previous.carry(dir, base, func([]byte) bool { return true }, false)
	return old, ok, nil
}

func (d *treeFiles) PreviousDir() string {
	if d.previous == nil {
		return ""
	}
	return d.previousDir
}
