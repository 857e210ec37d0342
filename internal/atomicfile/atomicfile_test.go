package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: the file holds the bytes, is replaced whole, and no
// temporary file stays; a directory that does not exist fails and leaves
// nothing.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "entry")
	for _, data := range []string{"first", "second, longer"} {
		if err := Write(p, ".tmp-*", []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
	if err := Write(filepath.Join(dir, "missing", "entry"), ".tmp-*", []byte("x")); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
	// A rename that fails (the name is a non-empty directory) removes
	// the temporary file.
	blocked := filepath.Join(dir, "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(blocked, ".tmp-*", []byte("x")); err == nil {
		t.Error("a write over a non-empty directory succeeded")
	}
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left after a failed rename", e.Name())
		}
	}
}
