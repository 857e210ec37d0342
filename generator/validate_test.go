package generator

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/model"
	catsource "github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/release/validate"
)

func TestValidateCatalog(t *testing.T) {
	for _, tc := range []struct {
		name      string
		files     map[string]string
		wantEmpty bool
		wantErrs  int
	}{
		{name: "empty directory", wantEmpty: true},
		{name: "a package", files: map[string]string{"p/catalog.json": `{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"}]}
{"schema":"olm.bundle","package":"p","name":"p.v1.0.0","image":"example.com/p:1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
`}},
		{name: "a channel without its package", files: map[string]string{"p/catalog.json": `{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"}]}
`}, wantErrs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := catsource.Options{Client: &registry.Client{}, Platform: catsource.DefaultPlatform}
			ps, empty, err := ValidateCatalog(context.Background(), dir, opts, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if empty != tc.wantEmpty {
				t.Errorf("empty = %v, want %v", empty, tc.wantEmpty)
			}
			if n := ps.Count(model.Error); (n > 0) != (tc.wantErrs > 0) {
				t.Errorf("%d errors, want %d: %v", n, tc.wantErrs, ps)
			}
		})
	}
}

func TestValidateGraphData(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "channels"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A channel file that is not YAML: the problem names it by the
	// directory as given, joined with its path inside.
	if err := os.WriteFile(filepath.Join(dir, "channels", "stable-4.1.yaml"), []byte("name: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := ValidateGraphData(context.Background(), dir, "", source.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if ps.Count(validate.Error) == 0 {
		t.Fatalf("no error for a channel file that is not YAML: %v", ps)
	}
	for _, p := range ps {
		if p.File != "" && !strings.HasPrefix(p.File, dir) {
			t.Errorf("problem file %q not under the directory %s", p.File, dir)
		}
	}
}
