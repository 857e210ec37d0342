package writer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// snapshot returns every file (path → content) and directory (path + "/")
// below dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." {
				out[rel+"/"] = ""
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// siblings lists the names in dir's parent directory (the lock file
// that serialises runs is removed when released: nothing is left).
func siblings(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestDirStoreLockAndStaleStaging(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	first, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A second run on the same output is refused while the first holds it.
	if _, err := s.Begin(context.Background()); err == nil || !strings.Contains(err.Error(), "another upgraph run") {
		t.Fatalf("concurrent Begin: err = %v, want the lock to refuse", err)
	}
	// A run killed without cleaning up leaves its staging directory; the
	// next run removes it.
	stale := filepath.Join(filepath.Dir(dir), ".out.upgraph-0123456789ab")
	if err := os.MkdirAll(filepath.Join(stale, "graph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := first.Abort(); err != nil {
		t.Fatal(err)
	}
	commit(t, s, gen1)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale staging directory survived: %v", err)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v, want only out", got)
	}
}

func generation(t testing.TB, s Store, files map[string]string) Staging {
	t.Helper()
	ctx := context.Background()
	st, err := s.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := st.Put(ctx, name, []byte(files[name])); err != nil {
			t.Fatalf("Put(%s): %v", name, err)
		}
	}
	return st
}

func commit(t testing.TB, s Store, files map[string]string) {
	t.Helper()
	if err := generation(t, s, files).Commit(context.Background()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func files(t *testing.T, snap map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range snap {
		if k[len(k)-1] != '/' {
			out[k] = v
		}
	}
	return out
}

var (
	gen1 = map[string]string{
		"index.json":                        `{"format":1,"generator":"upgraph"}` + "\n",
		"graph/amd64/stable-4.1.json":       `{"version":1}`,
		"graph/amd64/stable-4.1/4.1.0.json": "a",
		"graph/arm64/stable-4.1.json":       "b",
	}
	gen2 = map[string]string{
		"index.json":                  `{"format":1,"generator":"upgraph","n":2}` + "\n",
		"graph/amd64/stable-4.2.json": "c",
		"graph/s390x/fast-4.2.json":   "",
	}
)

func TestDirStoreCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "parent", "out")
	s := DirStore{Dir: dir}

	// First commit creates the directory (and its parent).
	commit(t, s, gen1)
	if got := files(t, snapshot(t, dir)); !maps.Equal(got, gen1) {
		t.Fatalf("after first commit: %v, want %v", got, gen1)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v after commit, want only out", got)
	}

	// Second commit replaces the whole tree.
	commit(t, s, gen2)
	if got := files(t, snapshot(t, dir)); !maps.Equal(got, gen2) {
		t.Fatalf("after second commit: %v, want %v", got, gen2)
	}
	if _, err := os.Stat(filepath.Join(dir, "graph", "arm64")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("directory of the old generation survived: %v", err)
	}
	// The replaced generation is kept beside it as the spare, whole.
	if got := siblings(t, dir); !slices.Equal(got, []string{".out.upgraph-spare", "out"}) {
		t.Errorf("parent holds %v after the swap, want the spare and out", got)
	}
	if got := files(t, snapshot(t, SpareName(dir))); !maps.Equal(got, gen1) {
		t.Errorf("spare after the second commit: %v, want %v", got, gen1)
	}

	// An empty generation is a valid (empty) tree, made in the spare.
	commit(t, s, nil)
	if got := snapshot(t, dir); len(got) != 0 {
		t.Errorf("after an empty commit: %v", got)
	}
	// Without a spare, nothing is left beside the output.
	commit(t, DirStore{Dir: dir, NoSpare: true}, gen1)
	if got := files(t, snapshot(t, dir)); !maps.Equal(got, gen1) {
		t.Fatalf("after a commit without the spare: %v, want %v", got, gen1)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v after a commit without the spare, want only out", got)
	}
}

// TestDirStoreLockRemoved: the lock is held while staging and removed
// when released, after a commit, an abort and a refused Begin; another
// run meanwhile is refused.
func TestDirStoreLockRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	lockFile := filepath.Join(filepath.Dir(dir), ".out.upgraph-lock")
	st, err := DirStore{Dir: dir}.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lockFile); err != nil {
		t.Fatalf("no lock while staging: %v", err)
	}
	if _, err := (DirStore{Dir: dir}).Begin(context.Background()); err == nil || !strings.Contains(err.Error(), "another upgraph run") {
		t.Errorf("a second Begin: %v", err)
	}
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := siblings(t, dir); len(got) != 0 {
		t.Errorf("left beside the output after Abort: %v", got)
	}
	commit(t, DirStore{Dir: dir}, gen1)
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("left beside the output after Commit: %v", got)
	}
}

func TestDirStoreAbort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	commit(t, s, gen1)
	before := snapshot(t, dir)

	st := generation(t, s, gen2)
	if got := siblings(t, dir); len(got) != 3 {
		t.Fatalf("expected a staging directory and the lock next to out, found %v", got)
	}
	if err := st.Abort(); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if after := snapshot(t, dir); !maps.Equal(after, before) {
		t.Errorf("Abort changed the tree:\n%v\nwant\n%v", after, before)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v after Abort, want only out", got)
	}

	// Abort before any commit leaves nothing behind.
	dir2 := filepath.Join(t.TempDir(), "fresh")
	st = generation(t, DirStore{Dir: dir2}, gen1)
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := siblings(t, dir2); len(got) != 0 {
		t.Errorf("parent holds %v after aborting the first generation", got)
	}
}

func TestDirStoreCommitCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	commit(t, s, gen1)
	before := snapshot(t, dir)
	st := generation(t, s, gen2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Commit(ctx); err == nil {
		t.Fatal("Commit succeeded with a cancelled context")
	}
	if after := snapshot(t, dir); !maps.Equal(after, before) {
		t.Errorf("a failed Commit changed the tree")
	}
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := siblings(t, dir); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v, want only out", got)
	}
}

func TestPutRejectsNames(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	st, err := DirStore{Dir: dir}.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	for _, name := range []string{
		"../x", "../../x", "a/../../x", "a/../b", "/abs", "/etc/passwd", "", ".", "..", "a//b", "a/", "./a", `a\b`, `..\x`,
	} {
		if err := st.Put(context.Background(), name, []byte("x")); err == nil {
			t.Errorf("Put(%q) succeeded, want an error", name)
		}
	}
	if got := siblings(t, dir); len(got) != 2 { // the staging directory and the lock
		t.Errorf("rejected names left files next to the staging directory: %v", got)
	}
	for _, name := range []string{"a", "b/c/d.json", "graph/amd64/1.0.0-!r!c.1.json", "x_y.json"} {
		if err := st.Put(context.Background(), name, []byte("ok")); err != nil {
			t.Errorf("Put(%q): %v", name, err)
		}
	}
}

func TestPutCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	st, err := DirStore{Dir: dir}.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Put(ctx, "a.json", []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context = %v, want context.Canceled", err)
	}
	if err := st.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, dir); len(got) != 0 {
		t.Errorf("a cancelled Put wrote %v", got)
	}
}

func TestPutConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	st, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := range 200 {
		want[fmt.Sprintf("graph/arch%d/ch%d/%d.json", i%3, i%7, i)] = fmt.Sprint(i)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(want))
	for name, body := range want {
		wg.Go(func() {
			if err := st.Put(context.Background(), name, []byte(body)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := st.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := files(t, snapshot(t, dir)); !maps.Equal(got, want) {
		t.Errorf("concurrent Puts stored %d files, want %d", len(got), len(want))
	}
}

func TestBeginOnAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (DirStore{Dir: p}).Begin(context.Background()); err == nil {
		t.Fatal("Begin succeeded although the output path is a file")
	}
	if got := siblings(t, p); !slices.Equal(got, []string{"out"}) {
		t.Errorf("Begin left %v", got)
	}
}

func TestRenameSwap(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for dir, content := range map[string]string{a: "new", b: "old"} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := renameSwap(a, b); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{a: "old", b: "new"} {
		if got, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(got) != want {
			t.Errorf("%s/f = %q, %v; want %q", dir, got, err, want)
		}
	}
	if got := siblings(t, a); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("renameSwap left %v", got)
	}
}
