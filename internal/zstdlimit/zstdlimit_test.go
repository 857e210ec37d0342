package zstdlimit

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// frame is a zstd frame of the header (after the magic number) and b as
// one raw block, written by hand since an encoder shrinks the window to
// small input.
func frame(header, b []byte) []byte {
	out := append([]byte{0x28, 0xb5, 0x2f, 0xfd}, header...)
	hdr := uint32(len(b))<<3 | 1 // raw, last block
	out = append(out, byte(hdr), byte(hdr>>8), byte(hdr>>16))
	return append(out, b...)
}

func TestNewReader(t *testing.T) {
	body := []byte("graph-data")
	var encoded bytes.Buffer
	zw, _ := zstd.NewWriter(&encoded)
	zw.Write(body)
	zw.Close()
	for _, tc := range []struct {
		name     string
		frame    []byte
		exceeded bool
	}{
		{"encoder's frame", encoded.Bytes(), false},
		{"window at the limit", frame([]byte{0x00, (27 - 10) << 3}, body), false},
		{"window of 256 MiB", frame([]byte{0x00, (28 - 10) << 3}, body), true},
		{"window of 2 GiB", frame([]byte{0x00, (31 - 10) << 3}, body), true},
		{"single segment of 1 GiB", frame(binary.LittleEndian.AppendUint64([]byte{0xe0}, 1<<30), body), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zr, err := NewReader(bytes.NewReader(tc.frame))
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			got, err := io.ReadAll(zr)
			if Exceeded(err) != tc.exceeded {
				t.Fatalf("read %q, %v: want Exceeded %v", got, err, tc.exceeded)
			}
			if !tc.exceeded && (err != nil || !bytes.Equal(got, body)) {
				t.Errorf("read %q, %v; want %q", got, err, body)
			}
		})
	}
}
