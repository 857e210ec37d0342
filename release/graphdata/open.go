package graphdata

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing/fstest"
)

// MaxFileBytes bounds one graph-data file, in a directory or an archive.
const MaxFileBytes = maxArchiveFile

// Limits on a graph-data archive; the real tree is under 10 MB.
const (
	maxArchiveFile  = 64 << 20
	maxArchiveTotal = 512 << 20
	// maxArchiveEntries bounds the files and directories kept, each of
	// which costs memory however small its header's share of the gzip
	// stream: about as much as maxArchiveTotal of content.
	maxArchiveEntries = 1 << 20
)

// Open returns the graph-data tree at p: a directory, or a .tar.gz / .tgz
// archive such as the one a graph-builder serves at /graph-data (or a
// GitHub tarball, whose single top-level directory is stepped into).
func Open(p string) (fs.FS, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("graph-data: %w", err)
	}
	if st.IsDir() {
		return os.DirFS(p), nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("graph-data: %w", err)
	}
	defer f.Close()
	fsys, err := ReadArchive(f)
	if err != nil {
		return nil, fmt.Errorf("graph-data %s: %w", p, err)
	}
	return fsys, nil
}

// ReadArchive reads a gzip-compressed tar into memory and returns the
// subtree holding the "version" file. Only regular files are kept; links
// and paths escaping the archive are rejected rather than followed.
func ReadArchive(r io.Reader) (fs.FS, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a gzip-compressed tar: %w", err)
	}
	return readTar(tar.NewReader(zr), nil, maxArchiveEntries)
}

// readTar keeps the regular files keep accepts (nil: all) and the
// directories, at most maxEntries of them, and returns the graph-data
// subtree.
func readTar(tr *tar.Reader, keep func(name string) bool, maxEntries int) (fs.FS, error) {
	files := fstest.MapFS{}
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading tar: %w", err)
		}
		name := strings.TrimPrefix(path.Clean("/"+h.Name), "/")
		if name == "" || strings.HasPrefix(h.Name, "../") || strings.Contains(h.Name, "/../") {
			if h.Typeflag == tar.TypeDir {
				continue
			}
			return nil, fmt.Errorf("tar entry %q escapes the archive", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeReg:
			if keep != nil && !keep(name) {
				continue
			}
		case tar.TypeDir:
		default:
			continue // links, devices: never followed
		}
		if _, ok := files[name]; !ok && len(files) >= maxEntries {
			return nil, fmt.Errorf("tar entry %q: more than %d files and directories in the archive", h.Name, maxEntries)
		}
		if h.Typeflag == tar.TypeDir {
			files[name] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			continue
		}
		if h.Size > maxArchiveFile {
			return nil, fmt.Errorf("tar entry %q is %d bytes, over the %d limit", h.Name, h.Size, maxArchiveFile)
		}
		total += h.Size
		if total > maxArchiveTotal {
			return nil, fmt.Errorf("archive expands to over %d bytes", maxArchiveTotal)
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxArchiveFile))
		if err != nil {
			return nil, fmt.Errorf("reading tar entry %q: %w", h.Name, err)
		}
		files[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	root, found := findRoot(files)
	if !found {
		return nil, fmt.Errorf("no graph-data \"version\" file in the archive")
	}
	a, err := newArchiveFS(files)
	if err != nil {
		return nil, err
	}
	if root == "." {
		return a, nil
	}
	return fs.Sub(a, root)
}

// findRoot picks the directory holding the graph-data "version" file:
// one that also has channels/ beats one that does not (an image may carry
// unrelated files named version), then the shallowest, then by name.
func findRoot(files fstest.MapFS) (root string, found bool) {
	hasChannels := map[string]bool{}
	for name := range files {
		if dir, _, ok := strings.Cut(name, "channels/"); ok && (dir == "" || strings.HasSuffix(dir, "/")) {
			hasChannels[strings.TrimSuffix(dir, "/")] = true
		}
	}
	better := func(a, b string) bool {
		ca, cb := hasChannels[path.Clean("/" + a)[1:]], hasChannels[path.Clean("/" + b)[1:]]
		if ca != cb {
			return ca
		}
		if depth(a) != depth(b) {
			return depth(a) < depth(b)
		}
		return a < b
	}
	for name, f := range files {
		if path.Base(name) != "version" || f.Mode.IsDir() {
			continue
		}
		if dir := path.Dir(name); !found || better(dir, root) {
			root, found = dir, true
		}
	}
	return root, found
}

// depth counts the components of a slash-separated directory; "." is 0.
func depth(dir string) int {
	if dir == "." {
		return 0
	}
	return strings.Count(dir, "/") + 1
}
