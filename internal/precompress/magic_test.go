package precompress

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIsGzipFile: gzip data by its magic, whatever the name; not a
// directory, a short file or a missing one.
func TestIsGzipFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gz := Gzip([]byte(`{"nodes":[],"edges":[]}`))
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{write("bundle.tar.gz", gz), true},
		{write("named-otherwise", gz), true},
		{write("plain.tar.gz", []byte("not gzip")), false},
		{write("short", []byte{0x1f}), false},
		{dir, false},
		{filepath.Join(dir, "missing"), false},
	} {
		if got := IsGzipFile(tc.p); got != tc.want {
			t.Errorf("IsGzipFile(%s) = %v, want %v", tc.p, got, tc.want)
		}
	}
}
