//go:build unix

package graphdata

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadNamedPipes: a named pipe among the graph-data files of a
// directory (a channel, a signature) is reported naming it, not opened:
// opening it blocked the load until something wrote to it.
func TestLoadNamedPipes(t *testing.T) {
	for _, pipe := range []string{"channels/pipe.yaml", "signatures/sha256/" + strings.Repeat("a", 64) + "/signature-1"} {
		t.Run(pipe, func(t *testing.T) {
			dir := t.TempDir()
			writeDir(t, dir, sample)
			p := filepath.Join(dir, filepath.FromSlash(pipe))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no named pipes:", err)
			}
			type result struct {
				gd  *GraphData
				err error
			}
			done := make(chan result, 1)
			go func() {
				gd, err := Load(os.DirFS(dir), DefaultOptions())
				done <- result{gd, err}
			}()
			select {
			case r := <-done:
				var got []string
				if r.err != nil {
					got = append(got, r.err.Error())
				}
				if r.gd != nil {
					for _, w := range r.gd.Warnings {
						got = append(got, w.Error())
					}
				}
				if want := pipe + ": not a regular file (p---------)"; !strings.Contains(strings.Join(got, "\n"), want) {
					t.Errorf("problems %q, want one containing %q", got, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the load blocked on a named pipe")
			}
		})
	}
}
