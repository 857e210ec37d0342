package main

import (
	"strings"
	"testing"
)

// TestEdgeCloudFrontCatalogs: the catalogs function lists the catalogs of
// the tree at --root, so that any other is answered 404; without --root,
// or for a tree without catalogs, it is refused naming the flag.
func TestEdgeCloudFrontCatalogs(t *testing.T) {
	work := t.TempDir()
	env := catalogEnv(t)
	if _, stderr, code := run(t, work, env, "generate", "--out", "tree", "--catalog", "c1=dir:"+needSharedCatalog(t), "--catalog", "c2=dir:"+needSharedCatalog(t)); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := run(t, work, env, "edge", "cloudfront", "--catalogs", "--root", "tree")
	if code != 0 || !strings.Contains(stdout, "\nvar CATALOGS = {'c1': 1, 'c2': 1};\n") || !strings.Contains(stdout, "\nfunction handler(event) {") {
		t.Errorf("edge cloudfront --catalogs --root tree: exit %d\n%.300s\n%s", code, stdout, stderr)
	}
	if _, _, code := run(t, work, env, "generate", "--out", "releases", "--demo"); code != 0 {
		t.Fatal("generate --demo failed")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--catalogs"}, "--catalogs needs --root"},
		{[]string{"--catalogs", "--root", "releases"}, "the tree has no operator catalog"},
		{[]string{"--catalogs", "--root", "nothing"}, "--root: "},
		{[]string{"--root", "tree"}, "the tree has no phased rollouts"},
	} {
		_, stderr, code := run(t, work, env, append([]string{"edge", "cloudfront"}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("edge cloudfront %q: exit %d, %q; want an error with %q", tc.args, code, stderr, tc.want)
		}
	}
}
