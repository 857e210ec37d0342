package opcat

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMirrorSetFlagsCheck(t *testing.T) {
	dir := t.TempDir()
	installed := filepath.Join(dir, "installed.yaml")
	if err := os.WriteFile(installed, []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	valid := MirrorSetFlags{Installed: installed, OLM: "v0", Format: "text", Out: filepath.Join(dir, "out"),
		From: "4.20.1", To: "4.21.2", Channel: "stable-4.21", Arch: "amd64", Catalogs: []string{dir}}
	for _, tc := range []struct {
		name string
		edit func(f *MirrorSetFlags)
		set  []string
		want string // "" for no error, else the error's start
	}{
		{"operators", func(*MirrorSetFlags) {}, []string{"installed", "catalog", "out"}, ""},
		{"release", func(*MirrorSetFlags) {}, []string{"from", "to", "channel", "out"}, ""},
		{"nothing", func(*MirrorSetFlags) {}, []string{"out"}, "nothing to plan"},
		{"bad olm", func(f *MirrorSetFlags) { f.OLM = "v9" }, []string{"installed", "catalog"}, "--olm: "},
		{"bad format", func(f *MirrorSetFlags) { f.Format = "yaml" }, []string{"installed", "catalog"}, "--format: want text or json"},
		{"empty installed", func(f *MirrorSetFlags) { f.Installed = "" }, []string{"installed", "catalog"}, "--installed: empty value"},
		{"no catalog", func(*MirrorSetFlags) {}, []string{"installed"}, "--installed needs --catalog"},
		{"catalog without installed", func(*MirrorSetFlags) {}, []string{"from", "to", "channel", "catalog"}, "--catalog, --catalog-set, --olm and --catalog-platform need --installed"},
		{"empty catalog", func(f *MirrorSetFlags) { f.Catalogs = nil }, []string{"installed", "catalog"}, "--catalog: empty value"},
		{"no to", func(f *MirrorSetFlags) { f.To = "" }, []string{"from", "channel"}, "--to is required for the cluster's path"},
		{"arch without release", func(*MirrorSetFlags) {}, []string{"installed", "catalog", "arch"}, "--arch is for the cluster's path"},
	} {
		f := valid
		tc.edit(&f)
		f.Set = func(n string) bool { return slices.Contains(tc.set, n) }
		_, err := f.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: Check() = %v, want %q…", tc.name, err, tc.want)
		}
	}
}
