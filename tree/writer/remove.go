package writer

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/upgraph/upgraph/internal/parallel"
)

// removeTree is os.RemoveAll for a generation: the directories three
// levels down (graph/<arch>/<channel>, a few hundred files each) are
// removed on every core first, since a generation holds tens of
// thousands of files and unlinking them one after another takes a
// noticeable part of a run.
func removeTree(dir string) error {
	// Only a directory of this store's own making is walked: were dir a
	// symbolic link, reading it would reach the tree it points to.
	if st, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil || !st.IsDir() {
		return os.Remove(dir)
	}
	level := []string{dir}
	for depth := 0; depth < 3; depth++ {
		var next []string
		for _, d := range level {
			entries, err := os.ReadDir(d)
			if err != nil {
				continue // os.RemoveAll below reports what matters
			}
			for _, e := range entries {
				if e.IsDir() {
					next = append(next, filepath.Join(d, e.Name()))
				}
			}
		}
		level = next
	}
	// Every leaf is tried, whatever fails: errors are collected, not
	// returned to Run.
	errs := make([]error, len(level))
	_ = parallel.Run(context.Background(), runtime.GOMAXPROCS(0), len(level), func(_ context.Context, _, i int) error {
		errs[i] = os.RemoveAll(level[i])
		return nil
	})
	return errors.Join(append(errs, os.RemoveAll(dir))...)
}
