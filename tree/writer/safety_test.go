package writer

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An output named through a symbolic link replaces the directory the link
// points to, atomically, and leaves the link a link: the tree it pointed
// to is never emptied (issue 15: a second generate through a link used to
// turn the link into a directory and delete the target's subdirectories).
func TestDirStoreThroughSymlink(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "trees", "current")
	commit(t, DirStore{Dir: target}, gen1)
	link := filepath.Join(base, "served")
	if err := os.Symlink(filepath.Join("trees", "current"), link); err != nil {
		t.Fatal(err)
	}
	var seen []Phase
	s := DirStore{Dir: link, Trace: func(p Phase) {
		seen = append(seen, p)
		if p == PhaseSwapping {
			// Up to the swap, the target still holds the old generation.
			if got := files(t, snapshot(t, target)); !maps.Equal(got, gen1) {
				t.Errorf("target before the swap: %v", got)
			}
		}
	}}
	commit(t, s, gen2)
	if !slices.Equal(seen, Phases) {
		t.Errorf("phases %v, want %v", seen, Phases)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v, %v", st, err)
	}
	if got := files(t, snapshot(t, target)); !maps.Equal(got, gen2) {
		t.Fatalf("target after a generation through the link:\n%v\nwant\n%v", got, gen2)
	}
	// Nothing is left beside the link; the staging tree went beside the
	// target, and the replaced generation is the spare there.
	if got := siblings(t, link); !slices.Equal(got, []string{"served", "trees"}) {
		t.Errorf("beside the link: %v", got)
	}
	if got := siblings(t, target); !slices.Equal(got, []string{".current.upgraph-spare", "current"}) {
		t.Errorf("beside the target: %v", got)
	}
	// A dangling link is refused, naming it.
	dangling := filepath.Join(base, "dangling")
	if err := os.Symlink("nowhere", dangling); err != nil {
		t.Fatal(err)
	}
	if _, err := (DirStore{Dir: dangling}).Begin(context.Background()); err == nil || !strings.Contains(err.Error(), dangling) {
		t.Errorf("dangling link: %v", err)
	}
}

// Outputs that are not a generation's place are refused before anything
// is written, naming what was given.
func TestDirStoreRefusesForeignOutputs(t *testing.T) {
	base := t.TempDir()
	foreign := filepath.Join(base, "home")
	if err := os.MkdirAll(filepath.Join(foreign, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A web site's own index.json does not make it a generation.
	site := filepath.Join(base, "www")
	if err := os.MkdirAll(filepath.Join(site, "photos"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"index.json": `{"format":1,"site":"mine"}`, "photos/a.txt": "a"} {
		if err := os.WriteFile(filepath.Join(site, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, foreign)
	beforeSite := snapshot(t, site)
	emptyDir := filepath.Join(base, "empty")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, want string
		is        error
	}{
		{"", "empty path", nil},
		{"/", "root", nil},
		{foreign, foreign, ErrNotAGeneration},
		{site, site, ErrNotAGeneration},
		{filepath.Join(foreign, "notes.txt"), "not a directory", nil},
	} {
		_, err := DirStore{Dir: tc.dir}.Begin(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("Begin(%q): %v, want an error containing %q", tc.dir, err, tc.want)
		}
	}
	if got := snapshot(t, foreign); !maps.Equal(got, before) {
		t.Errorf("a refused output changed: %v", got)
	}
	if got := snapshot(t, site); !maps.Equal(got, beforeSite) {
		t.Errorf("a refused output changed: %v", got)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 3 {
		t.Errorf("refusals left files beside the outputs: %v", entries)
	}
	if _, err := os.Stat("/.upgraph-lock"); err == nil {
		t.Errorf("--out / left /.upgraph-lock")
	}
	// An empty directory is a fine place for a first generation.
	commit(t, DirStore{Dir: emptyDir}, gen1)
	if got := files(t, snapshot(t, emptyDir)); !maps.Equal(got, gen1) {
		t.Errorf("empty output: %v", got)
	}
}

// A killed run's staging tree is moved aside when the next run starts and
// removed once its generation is in place, not before it starts (a real
// leftover took seconds to unlink); a trash directory a run left behind is
// removed too.
func TestDirStoreMovesLeftoversAside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	parent := filepath.Dir(dir)
	for _, name := range []string{".out.upgraph-0123456789ab", ".out.upgraph-trash-feedfacecafe"} {
		for i := range 50 {
			p := filepath.Join(parent, name, "graph", "amd64", "c", string(rune('a'+i%26))+".json")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var leftAtStage []string
	s := DirStore{Dir: dir, Trace: func(p Phase) {
		if p == PhaseStaged {
			leftAtStage, _ = filepath.Glob(filepath.Join(parent, ".out.upgraph-0123456789ab"))
		}
	}}
	commit(t, s, gen1)
	if len(leftAtStage) != 0 {
		t.Errorf("the stale staging tree still had its name when the run started: %v", leftAtStage)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v after the run, want only out", got)
	}
}
