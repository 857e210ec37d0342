package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/scrape"
)

// resolveImage returns the digest a tag (or digest) reference names now,
// with one HEAD request.
func resolveImage(ctx context.Context, c *registry.Client, ref string) (string, error) {
	r, err := c.Reference(ref)
	if err != nil {
		return "", err
	}
	desc, err := c.Puller.Head(ctx, r)
	if err != nil {
		return "", fmt.Errorf("image %s: %w", ref, err)
	}
	return desc.Digest.String(), nil
}

// releasesDigest names the release images a scrape found: the digest of
// their sorted manifest digests. What the tree says of a release comes
// from its image, which its digest names, so an equal digest means equal
// releases; tags that are not releases do not count.
func releasesDigest(res *scrape.Result) string {
	digests := make([]string, 0, len(res.Releases))
	for _, r := range res.Releases {
		digests = append(digests, r.Digest)
	}
	slices.Sort(digests)
	sum := sha256.Sum256([]byte(strings.Join(digests, "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// contentDigest is the digest of a directory's regular files (names and
// bytes, in lexical order) or of one file: what a directory input is
// compared by. Symbolic links are followed at the top only. Files are
// hashed as they are read, never held whole, and an input that is not a
// regular file or a directory (a named pipe would block the refresh) is
// refused naming it.
func contentDigest(p string) (string, error) {
	h := sha256.New()
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s: not a regular file or a directory (%s)", p, st.Mode().Type())
		}
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
	}
	root := os.DirFS(p)
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := root.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		// The size the open file has, then its bytes: a file growing
		// meanwhile gives another digest, as any change does.
		fmt.Fprintf(h, "%s\x00%d\x00", name, info.Size())
		_, err = io.Copy(h, io.LimitReader(f, info.Size()))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Clean(p), err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
