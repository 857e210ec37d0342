//go:build !linux

package writer

// previousTree does not reuse files where the tree cannot be opened
// without following symbolic links (openat2): they are all written.
type previousTree struct{}

func openPrevious(string) *previousTree                                   { return nil }
func (t *previousTree) close()                                            {}
func (t *previousTree) reuse(dst *treeDir, base string, data []byte) bool { return false }
func (t *previousTree) open(*treeDir, string, int64, []byte) (previousFile, []byte, bool) {
	return previousFile{}, nil, false
}

type previousFile struct{}

func (previousFile) link() bool { return false }
func (previousFile) close()     {}
