// Package zstdtest writes zstd frames by hand for tests of decoders'
// bounds: an encoder shrinks the window it declares to fit small input,
// so a frame declaring a large window around a few bytes has to be made
// this way.
package zstdtest

import "encoding/binary"

// Frame is a zstd frame of header (the frame header after the magic
// number) and b as raw blocks of at most 128 KiB.
func Frame(header, b []byte) []byte {
	out := append([]byte{0x28, 0xb5, 0x2f, 0xfd}, header...)
	for {
		n := min(len(b), 128<<10)
		hdr := uint32(n) << 3 // raw block
		if n == len(b) {
			hdr |= 1 // last block
		}
		out = append(out, byte(hdr), byte(hdr>>8), byte(hdr>>16))
		out = append(out, b[:n]...)
		if b = b[n:]; len(b) == 0 {
			return out
		}
	}
}

// Window is b in a frame declaring a window of 2^windowLog bytes.
func Window(windowLog int, b []byte) []byte {
	return Frame([]byte{0x00, byte(windowLog-10) << 3}, b)
}

// Single is b in a single-segment frame declaring size bytes of content,
// which is its window.
func Single(size uint64, b []byte) []byte {
	return Frame(binary.LittleEndian.AppendUint64([]byte{0xe0}, size), b)
}
