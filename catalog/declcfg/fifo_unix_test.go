//go:build unix

package declcfg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/upgraph/upgraph/internal/fifotest"
)

// TestLoadNamedPipes: in a real catalog directory, a named pipe (or a link
// to one, or to /dev/zero) is refused naming the file instead of blocking
// the load (opening a pipe waits for a writer) or reading without end,
// with or without the decoded cache; a symbolic link to a regular file is
// read as before.
func TestLoadNamedPipes(t *testing.T) {
	const pkg = `{"schema":"olm.package","name":"p"}`
	tests := []struct {
		name string
		// setup adds to the catalog directory root (holding
		// p/catalog.json) what is tested, maybe leading to outside.
		setup func(root, outside string) error
		want  string // the error, or "" for a load of package p from p/link.json
	}{
		{"a named pipe", func(root, _ string) error {
			return syscall.Mkfifo(filepath.Join(root, "p", "pipe.json"), 0o644)
		}, "p/pipe.json: not a regular file (p---------)"},
		{"a link to a named pipe", func(root, outside string) error {
			if err := syscall.Mkfifo(filepath.Join(outside, "fifo"), 0o644); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "fifo"), filepath.Join(root, "p", "link.json"))
		}, "p/link.json: not a regular file (p---------)"},
		{"a link to /dev/zero", func(root, _ string) error {
			return os.Symlink("/dev/zero", filepath.Join(root, "p", "zero.json"))
		}, "p/zero.json: not a regular file (Dc---------)"},
		{"a named pipe as .indexignore", func(root, _ string) error {
			return syscall.Mkfifo(filepath.Join(root, "p", ".indexignore"), 0o644)
		}, "p/.indexignore: not a regular file (p---------)"},
		{"a link to a regular file", func(root, outside string) error {
			if err := os.WriteFile(filepath.Join(outside, "catalog.json"), []byte(pkg), 0o644); err != nil {
				return err
			}
			if err := os.Remove(filepath.Join(root, "p", "catalog.json")); err != nil { // the link's is the only package
				return err
			}
			return os.Symlink(filepath.Join(outside, "catalog.json"), filepath.Join(root, "p", "link.json"))
		}, ""},
	}
	for _, tt := range tests {
		for _, cached := range []bool{false, true} {
			dir := t.TempDir()
			root, outside := filepath.Join(dir, "configs"), filepath.Join(dir, "outside")
			for _, d := range []string{filepath.Join(root, "p"), outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(root, "p", "catalog.json"), []byte(pkg), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tt.setup(root, outside); err != nil {
				t.Skipf("%s: %v", tt.name, err)
			}
			var opts Options
			if cached {
				opts.Cache = &FileCache{Dir: filepath.Join(dir, "cache")}
			}
			type result struct {
				cfg *DeclarativeConfig
				err error
			}
			r := fifotest.Within(t, fmt.Sprintf("%s (cache %v): the load", tt.name, cached), func() result {
				cfg, err := LoadWith(context.Background(), os.DirFS(root), ".", opts)
				return result{cfg, err}
			})
			switch {
			case tt.want == "" && r.err != nil:
				t.Errorf("%s (cache %v): %v", tt.name, cached, r.err)
			case tt.want == "" && (len(r.cfg.Packages) != 1 || r.cfg.Packages[0].Pos.File != "p/link.json"):
				t.Errorf("%s (cache %v): packages %v", tt.name, cached, r.cfg.Packages)
			case tt.want != "" && (r.err == nil || r.err.Error() != tt.want):
				t.Errorf("%s (cache %v): error %v, want %q", tt.name, cached, r.err, tt.want)
			}
		}
	}
}
