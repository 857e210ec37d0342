package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFlagsCheck(t *testing.T) {
	dir := t.TempDir()
	ops := filepath.Join(dir, "operators.yaml")
	if err := os.WriteFile(ops, []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	valid := Flags{From: "4.20.1", To: "4.21.2", Channel: "stable-4.21", Arch: "amd64", Format: "text", OLM: "v0", Operators: ops,
		Catalogs: []string{"v4.20=" + dir, "v4.21=" + dir}}
	for _, tc := range []struct {
		name string
		edit func(f *Flags)
		set  []string
		want string // "" for no error, else the error's start
	}{
		{"valid", func(*Flags) {}, []string{"operators", "catalogs"}, ""},
		{"no from", func(f *Flags) { f.From = "" }, []string{"operators", "catalogs"}, "--from is required"},
		{"no channel", func(f *Flags) { f.Channel = "" }, []string{"operators", "catalogs"}, "--channel is required"},
		{"bad format", func(f *Flags) { f.Format = "yaml" }, []string{"operators", "catalogs"}, `--format: want text or json, got "yaml"`},
		{"bad olm", func(f *Flags) { f.OLM = "v9" }, []string{"operators", "catalogs"}, "--olm: "},
		{"no operators", func(*Flags) {}, []string{"catalogs"}, "--operators is required"},
		{"empty operators", func(f *Flags) { f.Operators = "" }, []string{"operators", "catalogs"}, "--operators: empty value"},
		{"both sets", func(*Flags) {}, []string{"operators", "catalogs", "catalog-set"}, "--catalogs and --catalog-set: give one"},
		{"no catalogs", func(*Flags) {}, []string{"operators"}, "--catalogs is required"},
		{"empty catalogs", func(f *Flags) { f.Catalogs = nil }, []string{"operators", "catalogs"}, "--catalogs: empty value"},
		{"minor missing", func(f *Flags) { f.Catalogs = f.Catalogs[:1] }, []string{"operators", "catalogs"}, "--catalogs: no catalog for v4.21"},
	} {
		f := valid
		tc.edit(&f)
		f.Set = func(n string) bool { return slices.Contains(tc.set, n) }
		_, cats, err := f.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: Check() = %v, want %q…", tc.name, err, tc.want)
		}
		if tc.want == "" && len(cats) != 2 {
			t.Errorf("%s: %d catalogs, want 2", tc.name, len(cats))
		}
	}
}
