package generator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/registry"
)

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCheckCatalogSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ spec, err string }{
		{dir, ""},
		{"dir:" + dir, ""},
		{"file:" + file, ""},
		{"quay.io/ops/index:v1", ""},
		{"file:" + dir, "--catalog " + dir + ": not a regular file"},
		{"dir:" + file, "--catalog " + file + ": not a directory"},
	} {
		if got := errString(CheckCatalogSource("catalog", tc.spec, "")); got != tc.err {
			t.Errorf("CheckCatalogSource(%q) = %q, want %q", tc.spec, got, tc.err)
		}
	}
	// Whatever source.Parse refuses is refused naming the flag.
	bad := "image:"
	_, perr := source.Parse(bad, source.Options{Client: &registry.Client{}})
	if perr == nil {
		t.Fatalf("source.Parse(%q) accepted it", bad)
	}
	if got, want := errString(CheckCatalogSource("catalog", bad, "")), "--catalog: "+perr.Error(); got != want {
		t.Errorf("CheckCatalogSource(%q) = %q, want %q", bad, got, want)
	}
}

func TestParseCatalogSpecs(t *testing.T) {
	set := &catalogset.Set{Catalogs: []catalogset.Catalog{{Name: "ops", Source: "quay.io/a/b:1", Priority: 2, Line: 3}}}
	minors := &catalogset.Set{Catalogs: []catalogset.Catalog{{Name: "m", Minors: map[string]string{"v4.22": "x"}, Line: 5}}}
	for _, tc := range []struct {
		name    string
		set     *catalogset.Set
		values  []string
		want    []CatalogSpec
		wantErr string
	}{
		{name: "none"},
		{name: "values", values: []string{"a=dir:/x", " b=quay.io/c/d:1"}, want: []CatalogSpec{{Name: "a", Source: "dir:/x"}, {Name: "b", Source: "quay.io/c/d:1"}}},
		{name: "set first", set: set, values: []string{"a=/x"}, want: []CatalogSpec{{Name: "ops", Source: "quay.io/a/b:1", Priority: 2, InSet: true}, {Name: "a", Source: "/x"}}},
		{name: "no name", values: []string{"/x"}, wantErr: `--catalog "/x": want NAME=SOURCE, e.g. community=registry.example.com/redhat/community-operator-index:v4.21`},
		{name: "twice", set: set, values: []string{"ops=/x"}, wantErr: `--catalog: catalog name "ops" given twice (or also in --catalog-set)`},
		{name: "no source", values: []string{"a="}, wantErr: `--catalog "a=": no source after '='; want ` + source.Syntax},
		{name: "minors", set: minors, wantErr: "--catalog-set set.yaml: line 5: catalog m: generate needs one source, not minors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCatalogSpecs("set.yaml", tc.set, tc.values)
			if errString(err) != tc.wantErr {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("specs %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("spec %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestCheckCatalogPlatform(t *testing.T) {
	for _, tc := range []struct {
		platform string
		ok       bool
	}{{"linux/amd64", true}, {"linux/arm/v7", true}, {"", false}, {"linux", false}} {
		if err := CheckCatalogPlatform(tc.platform); (err == nil) != tc.ok {
			t.Errorf("CheckCatalogPlatform(%q) = %v", tc.platform, err)
		}
	}
}
