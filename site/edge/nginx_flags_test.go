package edge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNginxOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts NginxOptions
		want string // "" for no error, else the error's start
	}{
		{"valid", NginxOptions{Root: "/srv/tree", Listen: "8080"}, ""},
		{"state dir without full", NginxOptions{Root: "/srv", Listen: "8080", StateDir: "/var"}, "--state-dir, --foreground and --user need --full"},
		{"bad root", NginxOptions{Root: `/a"b`, Listen: "8080"}, "--root: "},
		{"bad listen", NginxOptions{Root: "/srv", Listen: "80 80"}, "--listen: "},
		{"bad prefix", NginxOptions{Root: "/srv", Listen: "8080", Prefixes: []string{"/a b"}}, "--prefix: "},
		{"bad cache control", NginxOptions{Root: "/srv", Listen: "8080", CacheControl: "$x"}, "--cache-control: "},
		{"bad user", NginxOptions{Root: "/srv", Listen: "8080", Full: true, User: "a;b"}, "--user: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check: %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Fatalf("Check: %v, want %q…", err, tc.want)
			}
		})
	}
}

func TestNginxPrefixes(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{}},
		{[]string{""}, []string{""}},
		{[]string{"/", "api/", "/a/b/"}, []string{"", "/api", "/a/b"}},
	} {
		if got := NginxPrefixes(tc.in); got == nil || !slices.Equal(got, tc.want) {
			t.Errorf("NginxPrefixes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCheckKVS(t *testing.T) {
	for _, tc := range []struct {
		kvs                    string
		set, catalogs, rootSet bool
		want                   string
	}{
		{"", false, true, false, ""},
		{"kvs.json", true, false, true, ""},
		{"", true, false, true, "--kvs is empty"},
		{"kvs.json", true, true, true, "--kvs kvs.json: only for the graph function"},
		{"kvs.json", true, false, false, "--kvs kvs.json: only for the graph function"},
	} {
		err := CheckKVS(tc.kvs, tc.set, tc.catalogs, tc.rootSet)
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("CheckKVS(%q, %v, %v, %v) = %v, want %q…", tc.kvs, tc.set, tc.catalogs, tc.rootSet, err, tc.want)
		}
	}
}

func TestCloudFrontCatalogsRefusals(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct{ root, want string }{
		{"", "--catalogs needs --root"},
		{missing, "--root: "},
	} {
		if _, err := CloudFrontCatalogs(tc.root); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("CloudFrontCatalogs(%q) = %v, want %q…", tc.root, err, tc.want)
		}
	}
}

func TestReplaceFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "kvs.json")
	for _, data := range []string{"first", "second"} {
		if err := replaceFile(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(name); err != nil || string(got) != data {
			t.Fatalf("after replaceFile(%q): %q, %v", data, got, err)
		}
	}
}
