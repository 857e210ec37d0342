// Package zstdlimit decodes zstd streams from untrusted sources (image
// layers) with a bounded window, the memory the decoder allocates whole
// for each frame before reading it.
package zstdlimit

import (
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
)

// MaxWindow bounds the window of a zstd frame (and the size of a
// single-segment frame, whose window is its size): 128 MiB, the reference
// decoder's default limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 27), beyond which
// zstd itself refuses to decompress without --memory.
// klauspost/compress allows 512 MiB windows and 64 GiB frames by default,
// so that a 33 KB layer could take 512 MiB.
const MaxWindow = 128 << 20

// NewReader decodes r on the calling goroutine with windows (and
// single-segment frames) of at most MaxWindow; a frame beyond fails the
// read with an error Exceeded recognises. The caller closes the decoder.
func NewReader(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(MaxWindow), zstd.WithDecoderMaxMemory(MaxWindow))
}

// Exceeded reports whether err is a decoder's refusal of a frame whose
// window is over MaxWindow.
func Exceeded(err error) bool {
	return errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded)
}
