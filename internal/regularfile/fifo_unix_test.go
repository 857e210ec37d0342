//go:build unix

package regularfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/fifotest"
)

// TestReadNamedPipe: a real named pipe without a writer, named through a
// symbolic link, is refused without blocking.
func TestReadNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifotest.Mkfifo(t, filepath.Join(dir, "fifo.json"))
	if err := os.Symlink("fifo.json", filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	err := fifotest.Within(t, "reading a link to it", func() error {
		_, err := Read(os.DirFS(dir), "link.json", "d/link.json", false, 10)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "d/link.json: not a regular file") {
		t.Errorf("a link to a named pipe: %v", err)
	}
}
