package declcfg

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// TestIgnoreMatcher reproduces github.com/joelanford/ignore v0.1.2's
// TestMatcher (ignore_test.go), the library operator-registry uses for
// .indexignore: the same tree, patterns and verdicts, directories asked
// about as directories.
func TestIgnoreMatcher(t *testing.T) {
	fsys := fstest.MapFS{
		".indexignore": {Data: []byte(`
			# a is ignored anywhere
			a

			# the root's ignore directory
			/ignore

			# files named file1 anywhere below really
			/really/**/file1
		`)},
		"dir1/.indexignore": {Data: []byte(`
			# b is ignored anywhere in dir1
			b

			# dir1's own ignore directory
			/ignore

			# but a is not, in dir1
			!a
		`)},
	}
	for _, f := range []string{"a", "b", "c", "ignore/a", "ignore/b", "ignore/c", "dir1/a", "dir1/b", "dir1/c",
		"dir1/ignore/a", "dir1/ignore/b", "dir1/ignore/c", "really/file1", "really/file2", "really/long/file1",
		"really/long/file2", "really/long/path/file1", "really/long/path/file2", "really/long/path/to/file1",
		"really/long/path/to/file2", "really/long/path/to/the/file1", "really/long/path/to/the/file2"} {
		fsys[f] = &fstest.MapFile{}
	}
	ignored := map[string]bool{
		".": false, ".indexignore": false, "a": true, "b": false, "c": false,
		"ignore": true, "ignore/a": true, "ignore/b": true, "ignore/c": true,
		"dir1": false, "dir1/.indexignore": false, "dir1/a": false, "dir1/b": true, "dir1/c": false,
		"dir1/ignore": true, "dir1/ignore/a": false, "dir1/ignore/b": true, "dir1/ignore/c": true,
		"really": false, "really/file1": true, "really/file2": false,
		"really/long": false, "really/long/file1": true, "really/long/file2": false,
		"really/long/path": false, "really/long/path/file1": true, "really/long/path/file2": false,
		"really/long/path/to": false, "really/long/path/to/file1": true, "really/long/path/to/file2": false,
		"really/long/path/to/the": false, "really/long/path/to/the/file1": true, "really/long/path/to/the/file2": false,
	}
	m, err := newIgnoreMatcher(fsys, MaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		want, ok := ignored[p]
		if !ok {
			t.Errorf("no expectation for %s", p)
		}
		if got := m.match(p, d.IsDir()); got != want {
			t.Errorf("match(%q, dir=%v) = %v, want %v", p, d.IsDir(), got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIgnorePatterns: go-git's gitignore rules as the matcher applies
// them, one pattern at a time, to files and directories.
func TestIgnorePatterns(t *testing.T) {
	tests := []struct {
		pattern string
		domain  []string
		path    string
		isDir   bool
		want    bool
	}{
		{"*.json", nil, "a/b.json", false, true},
		{"*.json", nil, "a.json/b", false, true}, // a component matches
		{"*.json", []string{"a"}, "b.json", false, false},
		{"*.json", []string{"a"}, "a/b.json", false, true},
		{"/b.json", []string{"a"}, "a/b.json", false, true},
		{"/b.json", []string{"a"}, "a/c/b.json", false, false},
		{"dir/", nil, "dir", false, false}, // a file named dir
		{"dir/", nil, "dir", true, true},
		{"dir/", nil, "dir/x", false, true},
		{"x/dir/", nil, "x/dir", false, false},
		{"x/dir/", nil, "x/dir/y", false, true},
		{"**/tmp", nil, "a/b/tmp", false, true},
		{"**/tmp", nil, "tmp", false, true},
		{"a/**/z", nil, "a/z", false, true}, // ** spans zero directories too
		{"a/**/z", nil, "a/b/c/z", false, true},
		{"a/**", nil, "a/b", false, true},
		{"a/**", nil, "a", false, true},
		{"**", nil, "a/b", false, true}, // without a slash, ** is a name pattern: anything
		{"/**", nil, "a", false, false}, // anchored, a lone ** matches nothing
		{"a**", nil, "ab", false, true},
		{"x/a**", nil, "x/ab", false, false}, // ** inside a segment of a path pattern
		{"[", nil, "[", false, false},        // a malformed pattern
		{"[ab].json", nil, "b.json", false, true},
		{"\\#x", nil, "#x", false, true},
	}
	for _, tt := range tests {
		p := parseIgnorePattern(tt.pattern, tt.domain)
		if got := p.matches(splitPath(tt.path), tt.isDir); got != tt.want {
			t.Errorf("%q (domain %q) on %q (dir %v) = %v, want %v", tt.pattern, tt.domain, tt.path, tt.isDir, got, tt.want)
		}
	}
}
