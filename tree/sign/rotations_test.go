package sign

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/tree/manifest"
)

// rootsTree is a tree holding only the root chain of a keys directory.
type rootsTree struct{ dir string }

func (r rootsTree) Manifest() *manifest.Manifest { return &manifest.Manifest{} }
func (r rootsTree) Index() []byte                { return nil }
func (r rootsTree) String() string               { return "roots" }
func (r rootsTree) Close() error                 { return nil }
func (r rootsTree) ReadFile(context.Context, string) ([]byte, error) {
	return nil, fs.ErrNotExist
}
func (r rootsTree) ReadMetadata(_ context.Context, name string) ([]byte, error) {
	if !strings.HasSuffix(name, ".root.json") {
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}
	return os.ReadFile(filepath.Join(r.dir, name))
}

// TestVerifyRootRotationsBound: the root chain is read at most
// MaxRootRotations versions after the trusted root; a longer one is
// refused naming the first root beyond, instead of being read for as
// long as the tree has one more.
func TestVerifyRootRotationsBound(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(dir, InitOptions{At: at}); err != nil {
		t.Fatal(err)
	}
	trusted := readFile(t, filepath.Join(dir, RootFile))
	for i := range 4 {
		if _, err := Rotate(dir, RotateOptions{Roles: []string{"root"}, At: at.Add(time.Duration(i+1) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	now := at.Add(5 * time.Hour)
	// Four rotations within a bound of four: the chain is walked, and the
	// missing timestamp found next.
	_, err := Verify(t.Context(), rootsTree{dir}, VerifyOptions{Trusted: trusted, Now: now, MaxRootRotations: 4})
	if ThreatOf(err) != Unsigned {
		t.Fatalf("four rotations, bound four: %v, want the chain walked and the tree found unsigned", err)
	}
	_, err = Verify(t.Context(), rootsTree{dir}, VerifyOptions{Trusted: trusted, Now: now, MaxRootRotations: 3})
	want := "roots: tuf/5.root.json refused (root-rotation, TUF §5.3.3): more than 3 root versions after the trusted root's version 1: verify with a newer trusted root"
	if err == nil || err.Error() != want || ThreatOf(err) != RootRotation {
		t.Fatalf("four rotations, bound three: %v, want %q", err, want)
	}
}
