package edge

import (
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestCheckNginxBound: a tree whose catalogs name a value with more
// changed bytes than the encoder chain maps is refused, naming the
// catalog and the file; values at the bound, plain long values (split
// into directories, no changed byte) and trees without catalogs pass.
func TestCheckNginxBound(t *testing.T) {
	atBound := strings.Repeat("A", maxChanged)
	over := strings.Repeat("A", maxChanged+1)
	plainLong := strings.Repeat("a", 700)
	tests := []struct {
		name  string
		files []string
		want  string // "" passes
	}{
		{"no catalogs", []string{"graph/amd64/stable-4.16.json", "index.json"}, ""},
		{"at the bound", []string{"operators/c/" + metas.NameFile(atBound), "operators/c/" + metas.PackageSchemaNameFile("p", "olm.bundle", atBound) + ".gz"}, ""},
		{"plain long", []string{"operators/c/" + metas.PackageNameFile(plainLong, plainLong)}, ""},
		{"name over", []string{"operators/c/" + metas.NameFile("x"), "operators/c/" + metas.NameFile(over)}, "catalog c: operators/c/metas/name/"},
		{"package over", []string{"operators/d/" + metas.PackageSchemaNameFile(over, "olm.bundle", "n")}, "catalog d: operators/d/metas/package/"},
		{"mixed escapes over", []string{"operators/c/" + metas.SchemaNameFile("s", strings.Repeat("+é", maxChanged/3+1))}, "changes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &manifest.Manifest{Files: map[string]manifest.File{}}
			for _, f := range tt.files {
				m.Files[f] = manifest.File{}
			}
			err := CheckNginxBound(m)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
