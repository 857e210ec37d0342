package generator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/upgraph/upgraph/registry"
	relsource "github.com/upgraph/upgraph/release/source"
)

func TestCatalogSourceOptions(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, tc := range []struct {
		name    string
		cache   Cache
		wantDir string // "*" for the user's cache directory
		wantErr string
	}{
		{"cache dir", Cache{Dir: "/var/cache/upgraph", DirSet: true}, filepath.Join("/var/cache/upgraph", "catalogs"), ""},
		{"no cache", Cache{Disabled: true}, "", ""},
		{"both", Cache{Dir: "/c", DirSet: true, Disabled: true}, "", "--cache and --no-cache contradict each other"},
		{"default", Cache{}, "*", ""},
	} {
		opts, err := CatalogSourceOptions(registry.Options{PlainHTTP: true}, "linux/arm64", tc.cache, nil)
		switch {
		case tc.wantErr != "":
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantDir == "*" && opts.CacheDir == "", tc.wantDir != "*" && opts.CacheDir != tc.wantDir:
			t.Errorf("%s: cache dir %q, want %q", tc.name, opts.CacheDir, tc.wantDir)
		case !opts.Registry.PlainHTTP || opts.Platform != "linux/arm64":
			t.Errorf("%s: options %+v", tc.name, opts)
		}
	}
}

func TestReleaseSourceOptions(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, tc := range []struct {
		name, releases string
		cache          Cache
		wantCache      bool
		wantErr        string
	}{
		{"directory: no scrape", "dir:/srv/releases", Cache{Dir: "/c", DirSet: true}, false, ""},
		{"registry with cache", "registry:quay.io/ocp/release", Cache{Dir: "/c", DirSet: true}, true, ""},
		{"oci default cache", "oci:/layout", Cache{}, true, ""},
		{"no cache", "registry:quay.io/ocp/release", Cache{Disabled: true}, false, ""},
		{"both", "registry:quay.io/ocp/release", Cache{Dir: "/c", DirSet: true, Disabled: true}, false, "--cache and --no-cache contradict each other"},
	} {
		opts, err := ReleaseSourceOptions(relsource.Options{PayloadRepo: "quay.io/ocp/release"}, tc.releases, tc.cache, os.Stderr)
		switch {
		case tc.wantErr != "":
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case (opts.Scrape.Cache != nil) != tc.wantCache || opts.PayloadRepo != "quay.io/ocp/release":
			t.Errorf("%s: cache %v, want one: %v", tc.name, opts.Scrape.Cache, tc.wantCache)
		}
	}
}
