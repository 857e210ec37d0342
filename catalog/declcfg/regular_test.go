package declcfg

import (
	"context"
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/internal/regularfile"
)

// TestLoadRefusesIrregular: a catalog file larger than the bound (here
// lowered to 40 bytes), or something else than a regular file under a
// file's name, is refused naming the file before it is read, with or
// without the decoded cache, from a directory or as a single file; a file
// at the bound is read.
func TestLoadRefusesIrregular(t *testing.T) {
	const pkg = `{"schema":"olm.package","name":"p"}` // 35 bytes
	big := pkg + "     \n"                            // 41 bytes
	fsys := fstest.MapFS{
		"a/ok.json":          {Data: []byte(pkg)},
		"a/at.json":          {Data: []byte(pkg + "    \n")}, // 40 bytes
		"b/big.json":         {Data: []byte(big)},
		"c/pipe.json":        {Mode: fs.ModeNamedPipe},
		"d/dev.json":         {Mode: fs.ModeDevice | fs.ModeCharDevice},
		"e/.indexignore":     {Data: []byte("# a comment of forty-one bytes, ignored.\n")},
		"e/ok.json":          {Data: []byte(pkg)},
		"f/z.json":           {Data: []byte(pkg)},
		"f/.indexignore":     {Mode: fs.ModeNamedPipe},
		"g/big-ignored.json": {Data: []byte(big)},
		"g/.indexignore":     {Data: []byte("big-*\n")},
		"g/ok.json":          {Data: []byte(pkg)},
	}
	tests := []struct {
		name string
		load func(opts Options) (*DeclarativeConfig, error)
		want string // the error, or "" for success
		big  bool   // the error is a *regularfile.TooLargeError
	}{
		{"directory, a file at the bound", dir(fsys, "a"), "", false},
		{"directory, a file over the bound", dir(fsys, "b"), "big.json: 41 bytes, more than the 40 it may have", true},
		{"directory, a named pipe", dir(fsys, "c"), "pipe.json: not a regular file (p---------)", false},
		{"directory, a device", dir(fsys, "d"), "dev.json: not a regular file (Dc---------)", false},
		{"directory, .indexignore over the bound", dir(fsys, "e"), ".indexignore: 41 bytes, more than the 40 it may have", true},
		{"directory, .indexignore a named pipe", dir(fsys, "f"), ".indexignore: not a regular file (p---------)", false},
		{"directory, an ignored file over the bound is not read", dir(fsys, "g"), "", false},
		{"file at the bound", file(fsys, "a/at.json"), "", false},
		{"file over the bound", file(fsys, "b/big.json"), "b/big.json: 41 bytes, more than the 40 it may have", true},
		{"file, a named pipe", file(fsys, "c/pipe.json"), "c/pipe.json: not a regular file (p---------)", false},
	}
	for _, tt := range tests {
		for _, cached := range []bool{false, true} {
			opts := Options{maxFileBytes: 40}
			if cached {
				opts.Cache = &FileCache{Dir: t.TempDir()}
			}
			cfg, err := tt.load(opts)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("%s (cache %v): %v", tt.name, cached, err)
			case tt.want == "" && len(cfg.Packages) == 0:
				t.Errorf("%s (cache %v): packages %v", tt.name, cached, cfg.Packages)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("%s (cache %v): error %v, want %q", tt.name, cached, err, tt.want)
			case tt.want != "":
				var large *regularfile.TooLargeError
				if errors.As(err, &large) != tt.big {
					t.Errorf("%s (cache %v): %v is a TooLargeError: %v", tt.name, cached, err, !tt.big)
				}
			}
		}
	}
}

func dir(fsys fs.FS, root string) func(Options) (*DeclarativeConfig, error) {
	return func(opts Options) (*DeclarativeConfig, error) {
		return LoadWith(context.Background(), fsys, root, opts)
	}
}

func file(fsys fs.FS, name string) func(Options) (*DeclarativeConfig, error) {
	return func(opts Options) (*DeclarativeConfig, error) {
		return LoadFileWith(context.Background(), fsys, name, opts)
	}
}
