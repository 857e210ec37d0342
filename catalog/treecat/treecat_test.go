package treecat

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/model"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/writer"
)

const fixtures = "../upgrade/testdata/catalogs"

// TestReadBack: the packages read back from a generated tree convert to
// the model of the catalog read from its directory (graphs and
// per-install answers), one package or all of them; unknown catalogs and
// packages are errors naming what the tree has.
func TestReadBack(t *testing.T) {
	ctx := context.Background()
	var cats []*catviews.Catalog
	for _, name := range []string{"divergence", "cross-channel"} {
		cats = append(cats, viewstest.Load(t, name, "dir:"+filepath.Join(fixtures, name), false))
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(ctx, nil, generator.RenderOptions{Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), Catalogs: cats}); err != nil {
		t.Fatal(err)
	}
	tr, err := tree.Open(ctx, dir, tree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, c := range cats {
		for _, pkgs := range [][]string{nil, c.PackageNames()} {
			cfg, sum, err := Read(ctx, tr, c.Name, pkgs)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Name != c.Name || sum.Source.Reference != c.Info.Reference {
				t.Errorf("%s: summary %s %+v", c.Name, sum.Name, sum.Source)
			}
			if got, want := modelViews(t, model.Convert(cfg)), modelViews(t, c.Model); !bytes.Equal(got, want) {
				t.Errorf("%s (packages %v): the model read back differs:\n%s\n%s", c.Name, pkgs, got, want)
			}
		}
	}
	for _, tc := range []struct {
		name string
		pkgs []string
		want string
	}{
		{"nope", nil, `has no catalog "nope" (it has cross-channel, divergence)`},
		{"divergence", []string{"mq"}, `catalog divergence of ` + dir + ` has no package "mq" (it has div)`},
	} {
		if _, _, err := Read(ctx, tr, tc.name, tc.pkgs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s, %v): %v, want %q", tc.name, tc.pkgs, err, tc.want)
		}
	}
}

func modelViews(t *testing.T, m *model.Catalog) []byte {
	t.Helper()
	b, err := json.Marshal(struct{ G, V any }{m.Graphs(), m.InstalledViews()})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
