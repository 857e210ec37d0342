//go:build unix

package service

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/fifotest"
)

// TestContentDigestStreams: a directory's digest is the one reading each
// file whole gave (a service's state keeps it across an upgrade), a named
// pipe in it is skipped as before, and a named pipe given as the input is
// refused naming it instead of blocking the refresh.
func TestContentDigestStreams(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"channels/a.yaml": "name: a\n", "version": "1.2.0\n"}
	for name, data := range files {
		write(t, filepath.Join(dir, name), data)
	}
	fifotest.Mkfifo(t, filepath.Join(dir, "pipe.yaml"))
	h := sha256.New()
	for _, name := range []string{"channels/a.yaml", "version"} { // lexical order
		fmt.Fprintf(h, "%s\x00%d\x00%s", name, len(files[name]), files[name])
	}
	want := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if got, err := contentDigest(dir); err != nil || got != want {
		t.Errorf("contentDigest = %s, %v; want %s", got, err, want)
	}
	err := fifotest.Within(t, "contentDigest", func() error {
		_, err := contentDigest(filepath.Join(dir, "pipe.yaml"))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "pipe.yaml: not a regular file or a directory") {
		t.Errorf("a named pipe as the input: %v", err)
	}
	_ = os.Remove(filepath.Join(dir, "pipe.yaml"))
}
