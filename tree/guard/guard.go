// Package guard is the shrink guard of a tree's store: before a new
// generation replaces the one at an output (a tree directory or a
// bundle), it is compared with it and refused when it is empty or when
// too much of the old one would disappear (manifest.CheckNotEmpty,
// manifest.CheckShrink). Every command that replaces a generation
// (generate, mirror, bundle, service) and publish share it.
package guard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// Options say what the guard protects and how strictly.
type Options struct {
	// Flag names the output in messages ("out" for --out).
	Flag string
	// Out is the output: a tree directory, or a bundle file when Bundle.
	Out    string
	Bundle bool
	// Threshold is the largest fraction of the old generation's releases,
	// channels or per-version graphs that may disappear (0 to 1).
	Threshold float64
	// Force replaces whatever is there; AllowEmpty writes an empty
	// generation.
	Force, AllowEmpty bool
}

// New reads the generation the output would replace and returns the check
// the new one must pass before it replaces it. It runs before any work,
// so a mistake is reported at once.
func New(ctx context.Context, o Options) (func(*manifest.Manifest) error, error) {
	flag, out, isBundle, force := o.Flag, o.Out, o.Bundle, o.Force
	var (
		prev *manifest.Manifest
		read os.FileInfo // the index.json prev was read from
		err  error
	)
	if isBundle {
		prev, err = PreviousBundle(ctx, out)
	} else {
		prev, read, err = previousTree(out)
	}
	if err != nil {
		if errors.Is(err, writer.ErrNotAGeneration) {
			return nil, fmt.Errorf("--%s %s %w", flag, out, err)
		}
		if !force {
			return nil, fmt.Errorf("--%s %s: %w; nothing was written (--force replaces it anyway)", flag, out, err)
		}
		prev = nil
	}
	return func(next *manifest.Manifest) error {
		if !o.AllowEmpty {
			if err := manifest.CheckNotEmpty(next); err != nil {
				return fmt.Errorf("%w; %s was not written (--allow-empty writes it anyway; check --channel, --arch and the inputs)", err, out)
			}
		}
		if force {
			return nil
		}
		if !isBundle {
			// Read again now that the output is locked: a run that
			// finished since the first read replaced the generation this
			// one is compared with. Unless index.json is still the file
			// read then (a generation is swapped in whole, so another
			// one's index.json is another inode): parsing tens of
			// thousands of entries again would delay the swap.
			if !unchanged(out, read) {
				if now, err := PreviousTree(out); err == nil {
					prev = now
				}
			}
		}
		if prev != nil {
			if err := manifest.CheckShrink(prev, next, o.Threshold); err != nil {
				return fmt.Errorf("--%s %s: %w; the generation there is unchanged (--force replaces it anyway, --shrink-threshold sets the fraction)", flag, out, err)
			}
		}
		return nil
	}, nil
}

// PreviousTree is the manifest of the generation at dir (nil when there
// is none yet); a directory that is neither empty nor a generation
// upgraph wrote is an error here already, before anything is computed,
// and one that --force does not override.
func PreviousTree(dir string) (*manifest.Manifest, error) {
	m, _, err := previousTree(dir)
	return m, err
}

// previousTree is PreviousTree, with the Lstat of the index.json read
// taken before it was read (nil when there is no generation): a file
// swapped in meanwhile is then another file than the one stat'ed, never
// the same with other bytes.
func previousTree(dir string) (*manifest.Manifest, os.FileInfo, error) {
	resolved, err := writer.Resolve(dir)
	if err != nil {
		return nil, nil, err
	}
	holds, err := writer.Inspect(resolved)
	if err != nil || !holds {
		return nil, nil, err
	}
	st, err := os.Lstat(filepath.Join(resolved, manifest.FileName))
	if err != nil {
		st = nil
	}
	m, err := manifest.Read(resolved)
	if err != nil {
		return nil, nil, fmt.Errorf("the generation there cannot be compared with the new one: %w", err)
	}
	return m, st, nil
}

// unchanged reports whether dir's index.json is still the file read,
// whose Lstat before it was read is read: the same inode, size and
// modification time (a generation's files are written before the
// commit returns, which waits out the file clock's tick).
func unchanged(dir string, read os.FileInfo) bool {
	if read == nil {
		return false
	}
	resolved, err := writer.Resolve(dir)
	if err != nil {
		return false
	}
	now, err := os.Lstat(filepath.Join(resolved, manifest.FileName))
	return err == nil && os.SameFile(read, now) && now.Size() == read.Size() && now.ModTime().Equal(read.ModTime())
}

// PreviousBundle is the manifest of the bundle at file (nil when there is
// none yet).
func PreviousBundle(ctx context.Context, file string) (*manifest.Manifest, error) {
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	sum, err := bundle.Verify(ctx, file, bundle.Limits{})
	if err != nil {
		return nil, fmt.Errorf("the bundle there cannot be compared with the new one: %w", err)
	}
	return sum.Manifest, nil
}
