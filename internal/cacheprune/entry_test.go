package cacheprune

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadEntry: a regular file's bytes and time, from one open file; a
// directory, a file over the bound and a missing file are refused.
func TestReadEntry(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	p := filepath.Join(dir, "entry")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
	if data, mod, err := ReadEntry(p, 5); err != nil || string(data) != "12345" || !mod.Equal(at) {
		t.Errorf("ReadEntry = %q, %v, %v; want 12345 of %v", data, mod, err, at)
	}
	for name, tc := range map[string]struct {
		path string
		max  int64
		want string
	}{
		"over the bound": {p, 4, "not a regular file of at most 4 bytes"},
		"a directory":    {dir, 1 << 20, "not a regular file"},
		"missing":        {filepath.Join(dir, "gone"), 1 << 20, "no such file"},
	} {
		if _, _, err := ReadEntry(tc.path, tc.max); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
}
