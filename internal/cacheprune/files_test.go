package cacheprune

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPruneFiles: old temporary files and stale entries go, then the
// least recently used (ties by path) until the rest fit the budget; a
// file changed since the listing stays.
func TestPruneFiles(t *testing.T) {
	now := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	plant := func(name string, age time.Duration, size int) File {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		at := now.Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		return File{Path: p, Mod: at, Size: int64(size)}
	}
	h := time.Hour
	entries := []File{
		plant("stale", 10*24*h, 10),
		plant("b-oldest", 5*h, 100),
		plant("a-oldest", 5*h, 100), // same time: removed first, by path
		plant("newer", 2*h, 100),
		plant("newest", h, 100),
		plant("used-meanwhile", 6*h, 100),
	}
	temps := []File{plant("temp-old", 2*h, 1), plant("temp-new", 30*time.Minute, 1)}
	// A run uses one entry after the listing.
	if err := os.Chtimes(entries[5].Path, now, now); err != nil {
		t.Fatal(err)
	}
	got := PruneFiles(entries, temps, now, Policy{Retention: 7 * 24 * h, MaxBytes: 250, TempAge: h})
	// 500 bytes of recent entries over a 250 budget: used-meanwhile (kept,
	// counted as gone), a-oldest, b-oldest.
	want := Removed{Stale: 1, OverSize: 2, Temporary: 1, Bytes: 210}
	if got != want {
		t.Errorf("removed %+v, want %+v", got, want)
	}
	var left []string
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		left = append(left, n.Name())
	}
	if wantLeft := []string{"newer", "newest", "temp-new", "used-meanwhile"}; !slices.Equal(left, wantLeft) {
		t.Errorf("left %v, want %v", left, wantLeft)
	}
}

// TestRemoveUnchangedLink: a symbolic link put where a listed file was is
// not removed, nor is its target.
func TestRemoveUnchangedLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "entry")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if RemoveUnchanged(File{Path: p, Mod: st.ModTime(), Size: 1}) {
		t.Error("a symbolic link was removed as the listed file")
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the target: %v", err)
	}
}
