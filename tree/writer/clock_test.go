package writer

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCommitWaitsOutTheFileClock: a file changed right after a commit
// returns has a later modification time than every file the generation
// wrote, so that a regeneration's LinkPrevious (not modified after the
// previous index.json) never takes the changed file over. Without the
// wait, about half of such changes fell in the same coarse clock tick.
func TestCommitWaitsOutTheFileClock(t *testing.T) {
	for i := range 20 {
		dir := filepath.Join(t.TempDir(), "out")
		st, err := DirStore{Dir: dir}.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a.json", "index.json"} {
			if err := st.Put(t.Context(), name, []byte("{}")); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		changed := filepath.Join(dir, "a.json")
		if err := os.WriteFile(changed, []byte("[]"), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := os.Stat(changed)
		if err != nil {
			t.Fatal(err)
		}
		index, err := os.Stat(filepath.Join(dir, "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !a.ModTime().After(index.ModTime()) {
			t.Fatalf("run %d: a.json changed after the commit has time %v, index.json %v: not later", i, a.ModTime(), index.ModTime())
		}
	}
}
