//go:build unix

package regularfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadNamedPipe: a real named pipe without a writer, named through a
// symbolic link, is refused without blocking.
func TestReadNamedPipe(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	if err := os.Symlink("fifo.json", filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(os.DirFS(dir), "link.json", "d/link.json", false, 10)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "d/link.json: not a regular file") {
			t.Errorf("a link to a named pipe: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a named pipe blocked")
	}
}
