package guard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestNew: an output with no generation yet compares with nothing, an
// empty generation is refused unless AllowEmpty, and a directory that is
// not a generation is refused before any work, naming the flag.
func TestNew(t *testing.T) {
	ctx := t.Context()
	missing := filepath.Join(t.TempDir(), "out")
	check, err := New(ctx, Options{Flag: "out", Out: missing, Threshold: 0.1})
	if err != nil {
		t.Fatalf("a missing output: %v", err)
	}
	if err := check(&manifest.Manifest{}); err == nil || !strings.Contains(err.Error(), "--allow-empty writes it anyway") {
		t.Errorf("an empty generation: %v, want a refusal naming --allow-empty", err)
	}
	check, err = New(ctx, Options{Flag: "out", Out: missing, Threshold: 0.1, AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := check(&manifest.Manifest{}); err != nil {
		t.Errorf("an empty generation with AllowEmpty: %v", err)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New(ctx, Options{Flag: "out", Out: other, Threshold: 0.1, Force: true})
	if !errors.Is(err, writer.ErrNotAGeneration) || !strings.HasPrefix(err.Error(), "--out "+other) {
		t.Errorf("a directory that is not a generation, even with Force: %v", err)
	}

	if m, err := PreviousBundle(ctx, filepath.Join(t.TempDir(), "b.tar.gz")); m != nil || err != nil {
		t.Errorf("PreviousBundle of a missing file = %v, %v; want nothing", m, err)
	}
}
