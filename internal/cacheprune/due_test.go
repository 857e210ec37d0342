package cacheprune

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestDue(t *testing.T) {
	now := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		marker func(t *testing.T, p string) // nil: no marker
		due    bool
	}{
		{"no marker", nil, true},
		{"pruned 59 minutes ago", regular(now.Add(-59 * time.Minute)), false},
		{"pruned 61 minutes ago", regular(now.Add(-61 * time.Minute)), true},
		{"a marker in the future (clock set back)", regular(now.Add(time.Hour)), true},
		{"a directory in its place", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), ".last-pruned")
			if tt.marker != nil {
				tt.marker(t, p)
			}
			if got := Due(p, now, time.Hour); got != tt.due {
				t.Fatalf("Due = %v, want %v", got, tt.due)
			}
			if !tt.due {
				return
			}
			st, err := os.Lstat(p)
			if err != nil || !st.Mode().IsRegular() || !st.ModTime().Equal(now) {
				t.Fatalf("marker after Due: %v (%v), want a regular file of time %v", st, err, now)
			}
			if Due(p, now.Add(time.Minute), time.Hour) {
				t.Error("due again a minute later")
			}
		})
	}
}

func regular(at time.Time) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDueLinkNotFollowed: a symbolic link planted as the marker is
// replaced, never written through: its target, outside the cache, keeps
// its bytes and time, however recent that time is.
func TestDueLinkNotFollowed(t *testing.T) {
	now := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	for _, age := range []time.Duration{time.Minute, 30 * 24 * time.Hour} {
		outside := filepath.Join(t.TempDir(), "precious")
		if err := os.WriteFile(outside, []byte("user data"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := now.Add(-age)
		if err := os.Chtimes(outside, at, at); err != nil {
			t.Fatal(err)
		}
		marker := filepath.Join(t.TempDir(), ".last-pruned")
		if err := os.Symlink(outside, marker); err != nil {
			t.Fatal(err)
		}
		if !Due(marker, now, time.Hour) {
			t.Errorf("target %v old: a link as the marker is not a marker, want due", age)
		}
		if data, err := os.ReadFile(outside); err != nil || string(data) != "user data" {
			t.Errorf("target %v old: holds %q (%v), want its bytes untouched", age, data, err)
		}
		if st, err := os.Stat(outside); err != nil || !st.ModTime().Equal(at) {
			t.Errorf("target %v old: its time changed (%v)", age, err)
		}
		if st, err := os.Lstat(marker); err != nil || !st.Mode().IsRegular() {
			t.Errorf("target %v old: the marker is not a regular file (%v)", age, err)
		}
	}
}

// TestUsed: an entry's time is set to the use only when it is more than
// the interval old or ahead; its access time is left alone.
func TestUsed(t *testing.T) {
	now := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		age  time.Duration
		set  bool
	}{
		{"used 59 minutes ago", 59 * time.Minute, false},
		{"used 61 minutes ago", 61 * time.Minute, true},
		{"an hour and a minute ahead (clock set back)", -61 * time.Minute, true},
		{"a minute ahead", -time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "entry")
			mod := now.Add(-tc.age)
			regular(mod)(t, p)
			Used(p, mod, now, time.Hour)
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			want := mod
			if tc.set {
				want = now
			}
			if !st.ModTime().Equal(want) {
				t.Errorf("time %v, want %v", st.ModTime(), want)
			}
		})
	}
	if got, want := []bool{IsLowerHex("0a9f"), IsLowerHex(""), IsLowerHex("0A"), IsLowerHex("g")}, []bool{true, false, false, false}; !slices.Equal(got, want) {
		t.Errorf("IsLowerHex of 0a9f, \"\", 0A, g = %v, want %v", got, want)
	}
}
