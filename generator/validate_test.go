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

func TestValidation(t *testing.T) {
	gdErr := validate.Problem{File: "channels/a.yaml", Severity: validate.Error, Rule: "R", Message: "bad"}
	catWarn := model.Problem{File: "p/catalog.json", Severity: model.Warning, Rule: "L", Message: "odd"}
	catErr := model.Problem{File: "p/catalog.json", Severity: model.Error, Rule: "F", Message: "wrong"}
	for _, tc := range []struct {
		name      string
		v         Validation
		wantCount int
		wantErr   string
	}{
		{name: "clean graph-data", v: Validation{GraphData: "gd"}},
		{name: "graph-data error", v: Validation{GraphData: "gd", GraphDataProblems: validate.Problems{gdErr}}, wantCount: 1,
			wantErr: "graph-data gd: 1 error, 0 warnings"},
		{name: "catalog warning only", v: Validation{Catalog: "cat", CatalogProblems: model.Problems{catWarn}}, wantCount: 1},
		{name: "both failing", v: Validation{GraphData: "gd", Catalog: "cat", GraphDataProblems: validate.Problems{gdErr}, CatalogProblems: model.Problems{catErr, catWarn}},
			wantCount: 3, wantErr: "graph-data gd: 1 error, 0 warnings; catalog cat: 1 error, 1 warning"},
		{name: "empty catalog", v: Validation{Catalog: "cat", CatalogEmpty: true},
			wantErr: "catalog cat: no blob at all (an empty directory or file): no package to publish"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := len(tc.v.Problems()); n != tc.wantCount {
				t.Errorf("%d problems, want %d", n, tc.wantCount)
			}
			got := ""
			if err := tc.v.Err(); err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("Err = %q, want %q", got, tc.wantErr)
			}
		})
	}
}
