package service

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSetInputs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		in   Inputs
		want string // "" for no error, else the error's start
	}{
		{"image", Inputs{Releases: "registry:quay.io/ocp/release", GraphDataImage: "image:quay.io/ocp/graph-data:latest"}, ""},
		{"dir", Inputs{Releases: "quay.io/ocp/release", GraphData: dir}, ""},
		{"no releases", Inputs{GraphData: dir}, "--releases is required"},
		{"bad releases", Inputs{Releases: "quay.io/Bad Repo", GraphData: dir}, "--releases: "},
		{"both", Inputs{Releases: "quay.io/ocp/release", GraphData: dir, GraphDataImage: "quay.io/gd:1"}, "--graph-data-image and --graph-data: give one"},
		{"neither", Inputs{Releases: "quay.io/ocp/release"}, "--graph-data-image is required"},
		{"bad image", Inputs{Releases: "quay.io/ocp/release", GraphDataImage: "quay.io/gd:bad tag"}, "--graph-data-image: "},
		{"missing dir", Inputs{Releases: "quay.io/ocp/release", GraphData: filepath.Join(dir, "none")}, "--graph-data: "},
	} {
		var cfg Config
		err := cfg.SetInputs(tc.in)
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: SetInputs = %v, want %q…", tc.name, err, tc.want)
		}
	}
	var cfg Config
	if err := cfg.SetInputs(Inputs{Releases: "registry:quay.io/ocp/release", GraphDataImage: "image:quay.io/gd:1"}); err != nil ||
		cfg.Releases != "quay.io/ocp/release" || cfg.GraphData != "quay.io/gd:1" || !cfg.GraphDataIsImage {
		t.Errorf("SetInputs: %v, %+v", err, cfg)
	}
}

func TestSetOutputs(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  Outputs
		want string
	}{
		{"none", Outputs{}, ""},
		{"all", Outputs{Prefixes: []string{"", "/api/upgrades_info/"}, CacheMB: 8, Publish: "s3://bucket/prefix"}, ""},
		{"bad prefix", Outputs{Prefixes: []string{"/a//b"}}, `--prefix "/a//b": `},
		{"negative cache", Outputs{CacheMB: -1}, "--cache-mb -1: want 0 (no cache) or a positive number of MiB"},
		{"bad publish", Outputs{Publish: "http://bucket"}, "--publish: "},
	} {
		var cfg Config
		var s Serving
		err := cfg.SetOutputs(&s, tc.out)
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: SetOutputs = %v, want %q…", tc.name, err, tc.want)
		}
		if tc.name == "all" && (!slices.Equal(s.Prefixes, []string{"", "/api/upgrades_info"}) || s.CacheBytes != 8<<20 ||
			cfg.Publish == nil || cfg.Publish.Bucket != "bucket" || cfg.Publish.Prefix != "prefix") {
			t.Errorf("%s: %+v, %+v", tc.name, s, cfg.Publish)
		}
	}
}
