package sign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/trustedmetadata"
)

var at = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestParseThreshold(t *testing.T) {
	for _, tc := range []struct {
		in, role string
		want     Threshold
		err      string
	}{
		{in: "root=2/3", role: "root", want: Threshold{Keys: 3, Threshold: 2}},
		{in: "timestamp=1", role: "timestamp", want: Threshold{Keys: 1, Threshold: 1}},
		{in: "targets=2", role: "targets", want: Threshold{Keys: 2, Threshold: 2}},
		{in: "mirror=1", err: "ROLE one of root, targets, snapshot, timestamp"},
		{in: "root", err: "want ROLE=THRESHOLD"},
		{in: "root=3/2", err: "1 ≤ THRESHOLD ≤ KEYS"},
		{in: "root=0", err: "1 ≤ THRESHOLD ≤ KEYS"},
		{in: "root=x", err: "two whole numbers"},
	} {
		role, th, err := ParseThreshold(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.in) {
				t.Errorf("ParseThreshold(%q) = %v, want an error naming it and saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || role != tc.role || th != tc.want {
			t.Errorf("ParseThreshold(%q) = %s, %+v, %v; want %s, %+v", tc.in, role, th, err, tc.role, tc.want)
		}
	}
}

func TestInit(t *testing.T) {
	for _, alg := range Algorithms {
		t.Run(string(alg), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "keys")
			root, err := Init(dir, InitOptions{Algorithm: alg, At: at, Thresholds: map[string]Threshold{"root": {Keys: 3, Threshold: 2}}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := Describe(root), "root 2/3, targets 1/1, snapshot 1/1, timestamp 1/1"; got != want {
				t.Errorf("roles %s, want %s", got, want)
			}
			if !root.Signed.Expires.Equal(at.Add(DefaultRootExpiry)) {
				t.Errorf("expires %s", root.Signed.Expires)
			}
			// Separate keys: no key serves two roles.
			seen := map[string]string{}
			for _, role := range Roles {
				for _, id := range root.Signed.Roles[role].KeyIDs {
					if other, ok := seen[id]; ok {
						t.Errorf("key %s serves %s and %s", id, other, role)
					}
					seen[id] = role
					st, err := os.Stat(filepath.Join(dir, PrivateDir, id+".pem"))
					if err != nil || st.Mode().Perm() != 0o600 {
						t.Errorf("private key of %s: %v, mode %v, want 0600", role, err, st.Mode())
					}
				}
			}
			if st, err := os.Stat(filepath.Join(dir, PrivateDir)); err != nil || st.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v %v, want mode 0700", PrivateDir, err, st.Mode())
			}
			data := readFile(t, filepath.Join(dir, RootFile))
			if string(data) != string(readFile(t, filepath.Join(dir, "1.root.json"))) {
				t.Error("root.json differs from 1.root.json")
			}
			// A TUF client accepts it as its trusted root.
			if _, err := trustedmetadata.New(data); err != nil {
				t.Fatal(err)
			}
			if _, err := Init(dir, InitOptions{At: at}); err == nil || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), RootFile) {
				t.Errorf("second init: %v, want a refusal naming root.json", err)
			}
		})
	}
}

func TestInitRefusesATree(t *testing.T) {
	tree := t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "index.json"), []byte(`{"format":1,"generator":"upgraph"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{tree, filepath.Join(tree, "keys"), filepath.Join(tree, "a", "b")} {
		_, err := Init(dir, InitOptions{At: at})
		if err == nil || !strings.Contains(err.Error(), "inside the tree "+tree) {
			t.Errorf("Init(%s) = %v, want a refusal naming the tree", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(tree, PrivateDir)); err == nil {
		t.Error("keys were written into the tree")
	}
}

func TestRotate(t *testing.T) {
	dir := t.TempDir()
	first, err := Init(dir, InitOptions{At: at, Thresholds: map[string]Threshold{"root": {Keys: 2, Threshold: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	trusted := readFile(t, filepath.Join(dir, RootFile))
	next, err := Rotate(dir, RotateOptions{Roles: []string{"root", "timestamp"}, At: at.Add(time.Hour), Thresholds: map[string]Threshold{"root": {Keys: 3, Threshold: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if next.Signed.Version != 2 || Describe(next) != "root 2/3, targets 1/1, snapshot 1/1, timestamp 1/1" {
		t.Errorf("version %d, roles %s", next.Signed.Version, Describe(next))
	}
	for _, role := range []string{"root", "timestamp"} {
		for _, id := range next.Signed.Roles[role].KeyIDs {
			for _, old := range first.Signed.Roles[role].KeyIDs {
				if id == old {
					t.Errorf("%s key %s was not rotated", role, id)
				}
			}
		}
	}
	if got, want := next.Signed.Roles["targets"].KeyIDs, first.Signed.Roles["targets"].KeyIDs; got[0] != want[0] {
		t.Errorf("targets keys changed: %v, want %v", got, want)
	}
	// A client trusting version 1 walks to version 2.
	tm, err := trustedmetadata.New(trusted)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.UpdateRoot(readFile(t, filepath.Join(dir, "2.root.json"))); err != nil {
		t.Fatalf("version 2 is not accepted from version 1: %v", err)
	}
	kd, err := OpenKeys(dir)
	if err != nil || len(kd.Chain) != 2 {
		t.Fatalf("OpenKeys: %v, chain of %d", err, len(kd.Chain))
	}
	// Without the old root keys, no rotation.
	for _, id := range next.Signed.Roles[metadata.ROOT].KeyIDs[:2] {
		if err := os.Remove(filepath.Join(dir, PrivateDir, id+".pem")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Rotate(dir, RotateOptions{Roles: []string{"targets"}, At: at}); err == nil || !strings.Contains(err.Error(), "threshold 2") {
		t.Errorf("rotate without the root threshold: %v, want a refusal naming the threshold", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "3.root.json")); err == nil {
		t.Error("3.root.json written by a refused rotation")
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
