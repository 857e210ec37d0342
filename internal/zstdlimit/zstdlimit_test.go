package zstdlimit

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/upgraph/upgraph/internal/zstdtest"
)

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
		{"window at the limit", zstdtest.Window(27, body), false},
		{"window of 256 MiB", zstdtest.Window(28, body), true},
		{"window of 2 GiB", zstdtest.Window(31, body), true},
		{"single segment of 1 GiB", zstdtest.Single(1<<30, body), true},
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
