package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// SourceKind checks the tree to serve, p, given as flag ("LOCATION",
// "--s3", "--dir" or "--bundle"), and says how it is served: a
// directory watched, an s3:// tree followed, anything else copied once.
// LOCATION is checked as every command's tree location; --s3 is an
// s3://BUCKET[/PREFIX]; --dir a tree's directory (index.json in it) or a
// bundle (gzip data), served as one; --bundle a bundle.
func SourceKind(flag, p string) (tree.Kind, error) {
	switch flag {
	case "LOCATION":
		loc, _ := tree.ParseLocation(p) // checked by tree.CheckLocation
		return loc.Kind, tree.CheckLocation(flag, p, false)
	case "--s3":
		if _, _, err := s3tree.ParseURL(p); err != nil {
			return tree.KindS3, fmt.Errorf("--s3: %w", err)
		}
		return tree.KindS3, nil
	}
	st, err := os.Stat(p)
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err
	}
	switch {
	case err != nil:
		return tree.KindBundle, fmt.Errorf("%s %s: %w", flag, p, err)
	case st.IsDir() && flag == "--bundle":
		return tree.KindBundle, fmt.Errorf("--bundle %s: a directory, want a bundle written by upgraph mirror --bundle (serve a tree with --dir)", p)
	case st.IsDir():
		if _, err := os.Stat(filepath.Join(p, manifest.FileName)); err != nil {
			return tree.KindDir, fmt.Errorf("--dir %s: not a tree written by upgraph generate (no %s)", p, manifest.FileName)
		}
		return tree.KindDir, nil
	case !precompress.IsGzipFile(p):
		if flag == "--bundle" {
			return tree.KindBundle, fmt.Errorf("--bundle %s: not a bundle (.tar.gz) written by upgraph mirror --bundle", p)
		}
		return tree.KindBundle, fmt.Errorf("--dir %s: neither a tree directory nor a bundle (.tar.gz)", p)
	}
	return tree.KindBundle, nil
}

// Prefix normalises a route prefix (serve --prefix) to "" or
// /SEGMENT[/SEGMENT…]: segments of URL path characters that need no
// escaping, so that the routes match the paths clients send.
func Prefix(p string) (string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return "", nil
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", errors.New(`want path segments such as /api/upgrades_info, without "//", "." or ".."`)
		}
		for _, r := range seg {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r)) {
				return "", fmt.Errorf("%q is not allowed: want letters, digits and -._~ between slashes", r)
			}
		}
	}
	return "/" + p, nil
}
