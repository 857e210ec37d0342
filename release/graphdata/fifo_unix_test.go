//go:build unix

package graphdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/fifotest"
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
			fifotest.Mkfifo(t, p)
			got := fifotest.Within(t, "the load", func() []string {
				var got []string
				gd, err := Load(os.DirFS(dir), DefaultOptions())
				if err != nil {
					got = append(got, err.Error())
				}
				if gd != nil {
					for _, w := range gd.Warnings {
						got = append(got, w.Error())
					}
				}
				return got
			})
			if want := pipe + ": not a regular file (p---------)"; !strings.Contains(strings.Join(got, "\n"), want) {
				t.Errorf("problems %q, want one containing %q", got, want)
			}
		})
	}
}
