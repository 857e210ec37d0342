package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckReleases(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "graph.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		check   func() error
		wantErr string // a prefix; "" for none
	}{
		{"graph file", func() error { return CheckReleases("graph:"+file, false) }, ""},
		{"metadata dir", func() error { return CheckReleases("metadata:"+dir, false) }, ""},
		{"metadata not a dir", func() error { return CheckReleases("metadata:"+file, false) }, "--releases"},
		{"registry repository", func() error { return CheckReleases("registry:quay.io/openshift-release-dev/ocp-release", false) }, ""},
		{"no kind", func() error { return CheckReleases("quay.io", false) }, `--releases: release source "quay.io": want KIND:ARG, one of`},
		{"unknown kind", func() error { return CheckReleases("ftp:x", false) }, `--releases: release source "ftp:x": unknown kind "ftp"`},
		{"mirror", func() error { return CheckReleases(MirrorPrefix+"https://api.example.com", true) }, ""},
		{"mirror not http", func() error { return CheckReleases(MirrorPrefix+"file:///x", true) }, `--releases: release source "cincinnati:file:///x": want cincinnati:URL`},
		{"mirror not taken", func() error { return CheckReleases(MirrorPrefix+"https://api.example.com", false) }, `--releases: release source "cincinnati:https://api.example.com": unknown kind "cincinnati"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want %q...", err, tc.wantErr)
			}
		})
	}
}
