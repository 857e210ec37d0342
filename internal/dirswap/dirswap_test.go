package dirswap

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExchange: the two directories trade places, through renameat2 or,
// where it is not supported, the fallback.
func TestExchange(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "was-"+filepath.Base(d)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fallback := func(a, b string) error {
		t.Log("fallback")
		aside := filepath.Join(root, "aside")
		if err := os.Rename(b, aside); err != nil {
			return err
		}
		if err := os.Rename(a, b); err != nil {
			return err
		}
		return os.Rename(aside, a)
	}
	if err := SyncFS(a); err != nil {
		t.Fatal(err)
	}
	if err := Exchange(a, b, fallback); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{a: "was-b", b: "was-a"} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("%s after the exchange: %v", filepath.Base(dir), err)
		}
	}
}
