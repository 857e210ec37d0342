package imagebuild

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph/internal/dirswap"
)

// refNameAnnotation tags a manifest in an OCI layout's index.json; tools
// such as skopeo and crane address it as oci:DIR:TAG.
const refNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes idx as an OCI image layout at dir, tagged tag in
// index.json. The layout is written beside dir and then swapped in, so
// dir always holds either the previous complete layout or the new one,
// never a half-written one, even when the build is killed midway.
func WriteLayout(ctx context.Context, dir string, idx v1.ImageIndex, tag string) (err error) {
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("layout %s: %w", dir, err)
	}
	// A dot-name beside the target: the same file system (so the swap is
	// a rename), and not mistaken for a layout.
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return fmt.Errorf("layout %s: %w", dir, err)
	}
	defer func() {
		// After the swap tmp holds the previous layout; on failure, the
		// partial new one. Either way it goes.
		if rerr := os.RemoveAll(tmp); rerr != nil && err == nil {
			err = fmt.Errorf("layout %s: removing %s: %w", dir, tmp, rerr)
		}
	}()
	top := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), mutate.IndexAddendum{
		Add:        idx,
		Descriptor: v1.Descriptor{Annotations: map[string]string{refNameAnnotation: tag}},
	})
	if _, err := layout.Write(tmp, top); err != nil {
		return fmt.Errorf("layout %s: writing %s: %w", dir, tmp, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("layout %s: %w", dir, err)
	}
	// go-containerregistry writes blobs through 0600 temporary files; a
	// layout is for others to read (skopeo, a CI upload), like the rest
	// of out/.
	if err := readable(tmp); err != nil {
		return fmt.Errorf("layout %s: %w", dir, err)
	}
	if err := dirswap.SyncFS(tmp); err != nil {
		return fmt.Errorf("layout %s: flushing %s: %w", dir, tmp, err)
	}
	rerr := os.Rename(tmp, dir)
	if rerr == nil {
		return nil
	}
	// rename(2) replaces only an empty directory; an existing layout is
	// swapped with the new one instead.
	if _, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("layout %s: renaming %s into place: %w", dir, tmp, rerr)
	}
	if err := dirswap.Exchange(tmp, dir, renameSwap); err != nil {
		return fmt.Errorf("layout %s: swapping in %s: %w", dir, tmp, err)
	}
	return nil
}

// renameSwap swaps directories a and b with two renames, through a third
// name; b briefly does not exist, but is never incomplete.
func renameSwap(a, b string) error {
	aside, err := os.MkdirTemp(filepath.Dir(b), "."+filepath.Base(b)+".old-")
	if err != nil {
		return err
	}
	if err := os.Remove(aside); err != nil {
		return err
	}
	if err := os.Rename(b, aside); err != nil {
		return err
	}
	if err := os.Rename(a, b); err != nil {
		return errors.Join(err, os.Rename(aside, b))
	}
	return os.Rename(aside, a)
}

// readable makes every file under dir 0644 and every directory 0755.
func readable(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(path, mode)
	})
}
