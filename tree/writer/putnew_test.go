//go:build linux

package writer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPutNew checks that PutNew writes a file anew, never linking the
// previous generation's file even when it holds the same bytes, and never
// writing through the inode the spare (the generation before) holds
// under the name.
func TestPutNew(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	old := map[string]string{"index.json": gen1["index.json"], "a/same.json": "same bytes", "a/other.json": "old"}
	commit(t, s, old)
	commit(t, s, old)
	served := inode(t, filepath.Join(dir, "a/same.json"))
	spare := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".upgraph-spare")
	spareOther, err := os.Lstat(filepath.Join(spare, "a/other.json"))
	if err != nil {
		t.Fatalf("no spare: %v", err)
	}
	st, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	np, ok := st.(NewPutter)
	if !ok {
		t.Fatalf("%T is no NewPutter", st)
	}
	for name, data := range map[string]string{"index.json": gen1["index.json"], "a/same.json": "same bytes", "a/other.json": "new", "b/new.json": "added"} {
		if err := np.PutNew(ctx, name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a/same.json": "same bytes", "a/other.json": "new", "b/new.json": "added"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if os.SameFile(served, inode(t, filepath.Join(dir, "a/same.json"))) {
		t.Error("a/same.json linked from the previous generation")
	}
	if os.SameFile(spareOther, inode(t, filepath.Join(dir, "a/other.json"))) {
		t.Error("a/other.json written through the spare's inode")
	}
	// The replaced generation (the spare now) is as it was.
	for name, want := range old {
		if got, err := os.ReadFile(filepath.Join(spare, name)); err != nil || string(got) != want {
			t.Errorf("replaced generation's %s = %q, %v; want %q", name, got, err, want)
		}
	}
}
