package scrape

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/upgraph/upgraph/internal/zstdlimit"
)

// transportError marks a failure reading the blob itself (network, stall,
// truncation), as opposed to a blob that is not a compressed tar, which
// upstream treats as "no release-metadata in this layer".
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

type blobReader struct{ r io.Reader }

func (b blobReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = &transportError{err}
	}
	return n, err
}

// findMetadata streams one layer and stops at the first
// release-manifests/release-metadata entry; at most that entry is held in
// memory. found is false, with a reason, for layers without a valid
// document; err is set only when the blob could not be read.
//
// A negative verdict is only given after the whole blob has been read, so
// that its digest is checked: a cut or corrupted blob must fail, not pass
// for a layer without release-metadata (and be cached as such).
func findMetadata(layer v1.Layer) (doc ReleaseMetadata, found bool, reason string, err error) {
	rc, err := layer.Compressed()
	if err != nil {
		return doc, false, "", err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(blobReader{rc}, 64<<10)
	doc, found, reason, err = scanLayer(br)
	if err != nil || found {
		return doc, found, reason, err
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return doc, false, "", unwrapTransport(err)
	}
	return doc, false, reason, nil
}

func scanLayer(br *bufio.Reader) (doc ReleaseMetadata, found bool, reason string, err error) {
	tr, closeFn, err := decompress(br)
	if err != nil {
		return doc, false, "", err
	}
	if tr == nil {
		return doc, false, "layer is not a gzip, zstd or plain tar", nil
	}
	defer closeFn()
	t := tar.NewReader(tr)
	for {
		h, err := t.Next()
		if te := (*transportError)(nil); errors.As(err, &te) {
			return doc, false, "", te.err
		}
		if errors.Is(err, io.EOF) {
			return doc, false, "no " + MetadataPath, nil
		}
		if zstdlimit.Exceeded(err) {
			return doc, false, fmt.Sprintf("zstd frame needs a window of more than %d bytes, zstd's own default limit: not read", maxZstdWindow), nil
		}
		if err != nil {
			return doc, false, "layer is not a valid tar: " + err.Error(), nil
		}
		if !isMetadataEntry(h) {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(t, maxMetadataSize+1))
		if te := (*transportError)(nil); errors.As(err, &te) {
			return doc, false, "", te.err
		}
		if err != nil {
			return doc, false, "reading " + MetadataPath + ": " + err.Error(), nil
		}
		if len(data) > maxMetadataSize {
			return doc, false, fmt.Sprintf("%s is larger than %d bytes", MetadataPath, maxMetadataSize), nil
		}
		parsed, err := parseMetadata(data)
		if err != nil {
			// Upstream moves on to the next lower layer.
			return doc, false, MetadataPath + ": " + err.Error(), nil
		}
		return parsed, true, "", nil
	}
}

func unwrapTransport(err error) error {
	if te := (*transportError)(nil); errors.As(err, &te) {
		return te.err
	}
	return err
}

// isMetadataEntry matches the path exactly, also in "./" form, which some
// layer builders write; upstream compares path components and would miss it.
func isMetadataEntry(h *tar.Header) bool {
	if h.Typeflag != tar.TypeReg {
		return false
	}
	name := strings.TrimPrefix(h.Name, "./")
	return !strings.HasPrefix(name, "/") && path.Clean(name) == MetadataPath
}

// maxZstdWindow bounds the window of a zstd layer (and the size of a
// single-segment frame, whose window is its size), which the decoder
// allocates whole: zstdlimit.MaxWindow, 128 MiB, the reference decoder's
// default limit. klauspost/compress allows 512 MiB windows and 64 GiB
// frames, so that a 33 KB layer took 512 MiB in each of the scraper's 16
// workers.
const maxZstdWindow = zstdlimit.MaxWindow

// decompress sniffs the blob (zstdlimit.Decompress). A nil reader means
// an unknown format: a gzip or zstd header its decoder refuses.
func decompress(br *bufio.Reader) (io.Reader, func(), error) {
	if _, err := br.Peek(4); err != nil && !errors.Is(err, io.EOF) {
		if te := (*transportError)(nil); errors.As(err, &te) {
			return nil, nil, te.err
		}
		return nil, nil, err
	}
	r, closeFn, err := zstdlimit.Decompress(br)
	if te := (*transportError)(nil); errors.As(err, &te) {
		return nil, nil, te.err
	}
	if err != nil {
		return nil, func() {}, nil
	}
	return r, closeFn, nil
}
