//go:build linux

package writer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLinkPrevious checks what an incremental generation may take over
// from the previous tree without reading it: a regular file of the size
// given, not modified after the time given, beneath the tree; nothing is
// linked otherwise.
func TestLinkPrevious(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	commit(t, s, map[string]string{
		"index.json":        `{"generator":"upgraph"}`,
		"graph/a/kept.json": "kept bytes",
		"graph/a/late.json": "late bytes",
		"graph/a/link.json": "link bytes",
		"graph/b/x.json":    "in a directory",
		"graph/c/d/y.json":  "deeper",
	})
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"index.json", "graph/a/kept.json", "graph/a/link.json", "graph/b/x.json"} {
		if err := os.Chtimes(filepath.Join(dir, name), past, past); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("link bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "graph/a/link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "graph/a/link.json")); err != nil {
		t.Fatal(err)
	}

	st, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	pl := st.(PreviousLinker)
	indexTime, ok, err := pl.PreviousModTime(context.Background(), "index.json")
	if err != nil || !ok || !indexTime.Equal(past) {
		t.Fatalf("PreviousModTime(index.json) = %v, %v, %v; want %v", indexTime, ok, err, past)
	}
	for _, tc := range []struct {
		name string
		size int64
		want bool
	}{
		{"graph/a/kept.json", 10, true},
		{"graph/b/x.json", 14, true},
		{"graph/a/late.json", 10, false},   // modified after index.json
		{"graph/a/link.json", 10, false},   // a symbolic link out of the tree
		{"graph/a/missing.json", 1, false}, // not in the previous tree
		{"graph/c/d", 4096, false},         // a directory
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			got, err := pl.LinkPrevious(context.Background(), tc.name, size, indexTime)
			if err != nil || got != tc.want {
				t.Fatalf("LinkPrevious = %v, %v; want %v", got, err, tc.want)
			}
			staged := filepath.Join(st.(*dirStaging).tmp, tc.name)
			if _, err := os.Lstat(staged); (err == nil) != tc.want {
				t.Errorf("staged %s: %v", tc.name, err)
			}
			if tc.want {
				if !os.SameFile(inode(t, staged), inode(t, filepath.Join(dir, tc.name))) {
					t.Error("not the previous tree's file")
				}
				// The wrong size: nothing linked.
				if again, _ := pl.LinkPrevious(context.Background(), tc.name+".other", size, indexTime); again {
					t.Error("linked a name the previous tree lacks")
				}
			}
		})
	}
	if got, _ := pl.LinkPrevious(context.Background(), "graph/a/kept.json", 11, indexTime); got {
		t.Error("linked a file of another size")
	}
}
