//go:build unix

package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/upgraph/upgraph/internal/fifotest"
)

// TestLocalNamedPipes: a named pipe or a device given as a catalog file,
// or found in a catalog directory, is refused naming it instead of
// blocking the load or being read without end; a file source that is a
// link to a regular file is read.
func TestLocalNamedPipes(t *testing.T) {
	root := t.TempDir()
	catalog := filepath.Join(root, "configs")
	if err := os.MkdirAll(filepath.Join(catalog, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(catalog, "p", "catalog.json"), []byte(`{"schema":"olm.package","name":"p"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(catalog, "p", "pipe.json")
	fifotest.Mkfifo(t, pipe)
	zero, link := filepath.Join(root, "zero.json"), filepath.Join(root, "link.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(catalog, "p", "catalog.json"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec string
		want string // the error, or "" for a load of package p
	}{
		{"dir:" + catalog, "catalog dir:" + catalog + ": p/pipe.json: not a regular file (p---------)"},
		{"file:" + pipe, "catalog file:" + pipe + ": " + pipe + " is not a regular file (p---------)"},
		{pipe, "catalog file:" + pipe + ": " + pipe + " is not a regular file (p---------)"},
		{"file:" + zero, "catalog file:" + zero + ": " + zero + " is not a regular file (Dc---------)"},
		{"file:" + link, ""},
	}
	for _, tt := range tests {
		for _, cached := range []bool{false, true} {
			opts := Options{}
			if cached {
				opts.CacheDir = t.TempDir()
			}
			src, err := Parse(tt.spec, opts)
			if err != nil {
				t.Fatalf("%s: %v", tt.spec, err)
			}
			type result struct {
				pkgs int
				err  error
			}
			r := fifotest.Within(t, fmt.Sprintf("loading %s (cache %v)", tt.spec, cached), func() result {
				cfg, _, err := src.Load(context.Background())
				if err != nil {
					return result{err: err}
				}
				return result{pkgs: len(cfg.Packages)}
			})
			switch {
			case tt.want == "" && (r.err != nil || r.pkgs != 1):
				t.Errorf("%s (cache %v): %d packages, %v", tt.spec, cached, r.pkgs, r.err)
			case tt.want != "" && (r.err == nil || r.err.Error() != tt.want):
				t.Errorf("%s (cache %v): error %v, want %q", tt.spec, cached, r.err, tt.want)
			}
		}
	}
}
