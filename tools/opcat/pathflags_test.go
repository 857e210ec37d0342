package opcat

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestPathFlagsCheck(t *testing.T) {
	dir := t.TempDir()
	valid := PathFlags{Catalog: dir, Package: "etcd", From: "0.9.0", OLM: "v0", Format: "text"}
	set := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, s := range names {
				if s == n {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name string
		edit func(f *PathFlags)
		set  []string
		want string // "" for no error, else the error's start
	}{
		{"valid", func(*PathFlags) {}, []string{"catalog", "package"}, ""},
		{"release flag", func(*PathFlags) {}, []string{"catalog", "package", "via-eus"}, "--via-eus is for release paths, not with --catalog"},
		{"bad olm", func(f *PathFlags) { f.OLM = "v9" }, []string{"catalog", "package"}, "--olm: "},
		{"bad platform", func(f *PathFlags) { f.Platform = "" }, []string{"catalog", "package", "catalog-platform"}, "--catalog-platform"},
		{"no catalog", func(*PathFlags) {}, []string{"package"}, "--package, --olm and --catalog-platform need --catalog"},
		{"missing set", func(f *PathFlags) { f.CatalogSet = filepath.Join(dir, "none.yaml") }, []string{"catalog-set", "package"}, "--catalog-set"},
		{"no package", func(*PathFlags) {}, []string{"catalog"}, "--package is required with --catalog"},
		{"empty package", func(f *PathFlags) { f.Package = "" }, []string{"catalog", "package"}, "--package: empty value"},
		{"no from", func(f *PathFlags) { f.From = "" }, []string{"catalog", "package"}, "--from is required"},
		{"empty to", func(*PathFlags) {}, []string{"catalog", "package", "to"}, "--to: empty value"},
		{"empty channel", func(*PathFlags) {}, []string{"catalog", "package", "channel"}, "--channel: empty value"},
		{"bad format", func(f *PathFlags) { f.Format = "yaml" }, []string{"catalog", "package"}, `--format: want text or json, got "yaml"`},
	} {
		f := valid
		tc.edit(&f)
		f.Set = set(tc.set...)
		_, _, err := f.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: Check() = %v, want %q…", tc.name, err, tc.want)
		}
	}
}
