package guard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestNew: an output with no generation yet compares with nothing, an
// empty generation is refused unless AllowEmpty, and a directory that is
// not a generation is refused before any work, naming the flag.
func TestNew(t *testing.T) {
	ctx := t.Context()
	missing := filepath.Join(t.TempDir(), "out")
	check, err := New(ctx, Options{Flag: "out", Out: missing, Threshold: 0.1})
	if err != nil {
		t.Fatalf("a missing output: %v", err)
	}
	if err := check(&manifest.Manifest{}); err == nil || !strings.Contains(err.Error(), "--allow-empty writes it anyway") {
		t.Errorf("an empty generation: %v, want a refusal naming --allow-empty", err)
	}
	check, err = New(ctx, Options{Flag: "out", Out: missing, Threshold: 0.1, AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := check(&manifest.Manifest{}); err != nil {
		t.Errorf("an empty generation with AllowEmpty: %v", err)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New(ctx, Options{Flag: "out", Out: other, Threshold: 0.1, Force: true})
	if !errors.Is(err, writer.ErrNotAGeneration) || !strings.HasPrefix(err.Error(), "--out "+other) {
		t.Errorf("a directory that is not a generation, even with Force: %v", err)
	}

	if m, err := PreviousBundle(ctx, filepath.Join(t.TempDir(), "b.tar.gz")); m != nil || err != nil {
		t.Errorf("PreviousBundle of a missing file = %v, %v; want nothing", m, err)
	}
}

// TestNewRereadsReplaced: the check compares the new generation with the
// one at the output when it runs: the generation read by New when no run
// replaced it since (its index.json the same file), the one swapped in
// meanwhile otherwise, or rewritten in place.
func TestNewRereadsReplaced(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out")
	write := func(dir string, releases int) {
		t.Helper()
		m := &manifest.Manifest{Format: manifest.Format, Generator: writer.GeneratorName, Channels: []string{"stable-4.1"},
			Files: map[string]manifest.File{}}
		m.Counts.Releases = releases
		data, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, manifest.FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	next := &manifest.Manifest{Channels: []string{"stable-4.1"}}
	next.Counts.Releases = 10
	for _, tc := range []struct {
		name    string
		between func(t *testing.T) // after New, before the check
		refused bool
	}{
		{"unchanged", func(*testing.T) {}, false},
		{"another generation swapped in", func(t *testing.T) {
			write(filepath.Join(base, "new"), 100)
			if err := os.Rename(out, filepath.Join(base, "old")); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(base, "new"), out); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"rewritten in place", func(t *testing.T) {
			m, err := manifest.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			m.Counts.Releases = 1000
			data, _ := m.Encode()
			f, err := os.OpenFile(filepath.Join(out, manifest.FileName), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(data); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(out)
			os.RemoveAll(filepath.Join(base, "old"))
			write(out, 10)
			check, err := New(t.Context(), Options{Flag: "out", Out: out, Threshold: 0.1, AllowEmpty: true})
			if err != nil {
				t.Fatal(err)
			}
			tc.between(t)
			err = check(next)
			if refused := errors.Is(err, manifest.ErrShrink); refused != tc.refused {
				t.Errorf("check: %v, want refused %v", err, tc.refused)
			}
		})
	}
}
