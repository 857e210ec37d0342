package imagebuild

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's non-root user. 65532 is the "nonroot" id distroless and
// other minimal images use, outside the ranges distributions hand out,
// and accepted by OpenShift's restricted security context (which
// replaces it with a namespace uid anyway).
const (
	UID      = 65532
	GID      = 65532
	UserName = "upgraph"
	// DataDir is where the in-cluster mode keeps its tree and caches; it
	// is the working directory and HOME.
	DataDir = "/var/lib/upgraph"
	// BinaryPath is where the binary lands; it is the entrypoint.
	BinaryPath = "/usr/bin/upgraph"
)

// gzipLevel is fixed because the compressed bytes, and so the layer and
// index digests, depend on it. compress/flate's default (6): on the amd64
// binary level 9 took 2.5 times as long for a layer 0.5% smaller.
const gzipLevel = gzip.DefaultCompression

// entry is one file or directory of the layer; body, when set, opens a
// regular file's content, whose length must be hdr.Size.
type entry struct {
	hdr  tar.Header
	body func() (io.ReadCloser, error)
}

// rootfs lists the layer's entries for the binary at bin: the whole
// filesystem of the image, nothing else (no shell, no CA bundle).
func rootfs(bin string, mtime time.Time) ([]entry, error) {
	fi, err := os.Stat(bin)
	if err != nil {
		return nil, fmt.Errorf("binary: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("binary %s is not a regular file", bin)
	}
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" +
		fmt.Sprintf("%s:x:%d:%d:%s:%s:/sbin/nologin\n", UserName, UID, GID, UserName, DataDir)
	group := "root:x:0:\n" + fmt.Sprintf("%s:x:%d:\n", UserName, GID)

	dir := func(name string, mode int64, uid, gid int) entry {
		return entry{hdr: header(tar.TypeDir, name+"/", mode, 0, uid, gid, mtime)}
	}
	file := func(name string, mode int64, content string) entry {
		return entry{
			hdr:  header(tar.TypeReg, name, mode, int64(len(content)), 0, 0, mtime),
			body: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil },
		}
	}
	es := []entry{
		dir("etc", 0o755, 0, 0),
		file("etc/passwd", 0o644, passwd),
		file("etc/group", 0o644, group),
		dir("tmp", 0o1777, 0, 0),
		dir("usr", 0o755, 0, 0),
		dir("usr/bin", 0o755, 0, 0),
		{
			hdr:  header(tar.TypeReg, strings.TrimPrefix(BinaryPath, "/"), 0o755, fi.Size(), 0, 0, mtime),
			body: func() (io.ReadCloser, error) { return os.Open(bin) },
		},
		dir("var", 0o755, 0, 0),
		dir("var/lib", 0o755, 0, 0),
		dir(strings.TrimPrefix(DataDir, "/"), 0o755, UID, GID),
	}
	// Sorted by name, a directory ("usr/") precedes what it holds
	// ("usr/bin/"), and the order never depends on how the list is written.
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.hdr.Name, b.hdr.Name) })
	return es, nil
}

// header is a tar header with every field fixed: USTAR (uid 65532, the
// modes and sizes up to 8 GiB fit, so no PAX records whose presence could
// vary), no user or group names (the numeric ids are what counts in a
// container), and mtime the commit time.
func header(typ byte, name string, mode, size int64, uid, gid int, mtime time.Time) tar.Header {
	return tar.Header{
		Typeflag: typ,
		Name:     name,
		Mode:     mode,
		Size:     size,
		Uid:      uid,
		Gid:      gid,
		ModTime:  mtime,
		Format:   tar.FormatUSTAR,
	}
}

// newLayer writes entries as a gzip-compressed tar into memory and returns
// it as a layer, hashing the tar (the diff ID) and the gzip stream (the
// digest) in the same pass.
func newLayer(entries []entry) (*layer, error) {
	var buf bytes.Buffer
	digest, diffID := sha256.New(), sha256.New()
	// The gzip header keeps its zero values: no name, no mtime, OS
	// "unknown", so it depends only on the level and the data.
	gz, err := gzip.NewWriterLevel(io.MultiWriter(&buf, digest), gzipLevel)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	tw := tar.NewWriter(io.MultiWriter(gz, diffID))
	for _, e := range entries {
		if err := writeEntry(tw, e); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.hdr.Name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer tar: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("layer gzip: %w", err)
	}
	return &layer{
		data:   buf.Bytes(),
		digest: v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", digest.Sum(nil))},
		diffID: v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", diffID.Sum(nil))},
	}, nil
}

func writeEntry(tw *tar.Writer, e entry) error {
	hdr := e.hdr
	if err := tw.WriteHeader(&hdr); err != nil {
		return err
	}
	if e.body == nil {
		return nil
	}
	r, err := e.body()
	if err != nil {
		return err
	}
	defer r.Close()
	// A file that grew or shrank since it was measured fails here or at
	// the next header rather than making a layer that lies about it.
	n, err := io.Copy(tw, r)
	if err == nil && n != hdr.Size {
		err = fmt.Errorf("read %d bytes, want %d", n, hdr.Size)
	}
	return err
}

// layer is a v1.Layer whose compressed bytes are in memory, with both
// hashes already known, so neither the layout nor the push recompresses
// or rehashes it.
type layer struct {
	data           []byte
	digest, diffID v1.Hash
}

var _ v1.Layer = (*layer)(nil)

func (l *layer) Digest() (v1.Hash, error) { return l.digest, nil }
func (l *layer) DiffID() (v1.Hash, error) { return l.diffID, nil }
func (l *layer) Size() (int64, error)     { return int64(len(l.data)), nil }
func (l *layer) MediaType() (types.MediaType, error) {
	return types.OCILayer, nil
}
func (l *layer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.data)), nil
}
func (l *layer) Uncompressed() (io.ReadCloser, error) {
	zr, err := gzip.NewReader(bytes.NewReader(l.data))
	if err != nil {
		return nil, err
	}
	return zr, nil
}
