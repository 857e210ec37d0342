package zstdlimit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Decompress returns the content of a layer's blob read through br, its
// format sniffed as go-containerregistry sniffs it: gzip, zstd with a
// window of at most MaxWindow, else br itself (an uncompressed tar, or
// what a tar reader then refuses). closeFn releases the decoder, not br's
// source. An error is br's, when its first bytes cannot be read, or the
// decoder's, when it refuses the stream's header.
func Decompress(br *bufio.Reader) (r io.Reader, closeFn func(), err error) {
	head, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return nil, nil, err
	}
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { zr.Close() }, nil
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	default:
		return br, func() {}, nil
	}
}

// Uncompressed is l's uncompressed bytes, decompressed from its blob here
// (Decompress) rather than by go-containerregistry's Layer.Uncompressed,
// which reads a zstd layer with klauspost/compress's defaults (whatever
// window, up to 512 MiB, or single-segment frame size its header
// declares, allocated whole however small the layer). Read errors name
// the layer's digest, and a zstd frame over the bound says so.
func Uncompressed(l v1.Layer) (io.ReadCloser, error) {
	digest, err := l.Digest()
	if err != nil {
		return nil, err
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", digest, err)
	}
	r, closeFn, err := Decompress(bufio.NewReaderSize(rc, 64<<10))
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("layer %s: %w", digest, err)
	}
	return &layerReader{r, digest, func() { closeFn(); rc.Close() }}, nil
}

// layerReader is a layer's uncompressed bytes; its errors name the layer
// (and, for a zstd window over the bound, the bound).
type layerReader struct {
	r      io.Reader
	digest v1.Hash
	close  func()
}

func (l *layerReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	switch {
	case err == nil || err == io.EOF:
	case Exceeded(err):
		err = fmt.Errorf("layer %s: zstd frame needs a window of more than %d bytes, zstd's own default limit: %w", l.digest, MaxWindow, err)
	default:
		err = fmt.Errorf("layer %s: %w", l.digest, err)
	}
	return n, err
}

func (l *layerReader) Close() error {
	l.close()
	return nil
}
