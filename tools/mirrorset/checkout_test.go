package mirrorset

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	previous := filepath.Join(dir, "previous")
	other := filepath.Join(dir, "other")
	empty := filepath.Join(dir, "empty")
	file := filepath.Join(dir, "file")
	for _, d := range []string{previous, other, empty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range map[string]string{filepath.Join(previous, ReportFile): "{}", filepath.Join(other, "x"): "x", file: "x"} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		out   string
		given bool
		want  string
	}{
		{filepath.Join(dir, "new"), true, ""},
		{empty, true, ""},
		{previous, true, ""},
		{"", false, "--out is required: the directory to write"},
		{"", true, "--out: empty path"},
		{"/", true, "--out /: the root directory"},
		{file, true, "--out " + file + ": exists and is not a directory"},
		{other, true, "--out " + other + ": not empty and holds no " + ReportFile + " (a previous mirror-set): give a new directory"},
	} {
		got := ""
		if err := CheckOut(tc.out, tc.given); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckOut(%q, %v) = %q, want %q", tc.out, tc.given, got, tc.want)
		}
	}
}
