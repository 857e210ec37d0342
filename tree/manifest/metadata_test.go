package manifest

import "testing"

func TestIsMetadata(t *testing.T) {
	for name, want := range map[string]bool{
		"tuf/1.root.json":                    true,
		"tuf/12.targets.json":                true,
		"tuf/3.snapshot.json":                true,
		"tuf/timestamp.json":                 true,
		"tuf/root.json":                      false, // only versioned roots travel in a tree
		"tuf/0.root.json":                    false,
		"tuf/01.root.json":                   false,
		"tuf/1.timestamp.json":               false,
		"tuf/sub/1.root.json":                false,
		"tuf/1.root.json.tmp":                false,
		"graph/tuf/1.root.json":              false,
		"tuf":                                false,
		"index.json":                         false,
		"tuf/1.mirrors.json":                 false,
		"tuf/1.delegated.json":               false,
		"tuf/99999999999999999999.root.json": false,
	} {
		if got := IsMetadata(name); got != want {
			t.Errorf("IsMetadata(%q) = %v, want %v", name, got, want)
		}
	}
}
