//go:build unix

package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/fifotest"
	"github.com/upgraph/upgraph/release/rollout"
)

// TestValidateNamedPipes: a named pipe under a graph-data file's name
// (channel, blocked edge, rollout) is a problem naming it, not a read that
// blocks until something writes to it; rollout.Load refuses it too.
func TestValidateNamedPipes(t *testing.T) {
	dir := t.TempDir()
	for name, data := range baseTree() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pipes := []string{"channels/pipe.yaml", "blocked-edges/pipe.yaml", "rollouts/pipe.yaml"}
	for _, name := range pipes {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		fifotest.Mkfifo(t, p)
	}
	got := fifotest.Within(t, "validating", func() string {
		var msgs []string
		for _, p := range Validate(os.DirFS(dir), Options{}) {
			msgs = append(msgs, p.File+": "+p.Message)
		}
		if _, err := rollout.Load(os.DirFS(dir)); err != nil {
			msgs = append(msgs, "rollout.Load: "+err.Error())
		}
		return strings.Join(msgs, "\n")
	})
	for _, want := range append(pipes, "rollout.Load: graph-data rollouts/pipe.yaml: rollouts/pipe.yaml: not a regular file") {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "not a regular file (p---------)"); n != len(pipes)+1 {
		t.Errorf("%d problems of a named pipe, want %d:\n%s", n, len(pipes)+1, got)
	}
}
