package writer

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// removeTree is os.RemoveAll for a generation: the directories three
// levels down (graph/<arch>/<channel>, a few hundred files each) are
// removed on every core first, since a generation holds tens of
// thousands of files and unlinking them one after another takes a
// noticeable part of a run.
func removeTree(dir string) error {
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
	leaves := level
	errs := make([]error, len(leaves))
	workers := min(runtime.GOMAXPROCS(0), len(leaves))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(leaves); i += workers {
				errs[i] = os.RemoveAll(leaves[i])
			}
		})
	}
	wg.Wait()
	return errors.Join(append(errs, os.RemoveAll(dir))...)
}
