package views

import (
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/tree/manifest"
)

func TestEncodeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"etcdoperator.v0.9.4", "etcdoperator.v0.9.4"},
		{"stable", "stable"},
		{"Stable", "!stable"},
		{"4.16.3+amd64", "4.16.3_amd64"},
		{"a_b", "a~5fb"},
		{"a!b~c", "a~21b~7ec"},
		{".hidden", "~2ehidden"},
		{".", "~2e"},
		{"..", "~2e."},
		{"a/b", "a~2fb"},
		{"a b", "a~20b"},
		{"ü", "~c3~bc"},
		{"A.B", "!a.!b"},
		{"x\x00", "x~00"},
	} {
		got := EncodeName(tc.in)
		if got != tc.want {
			t.Errorf("EncodeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := DecodeName(got)
		if err != nil || back != tc.in {
			t.Errorf("DecodeName(%q) = %q, %v; want %q", got, back, err, tc.in)
		}
	}
	// Every byte round-trips, and encodes to characters every store takes.
	for lo := 0; lo < 256; lo += 64 {
		var all strings.Builder
		for c := lo; c < lo+64; c++ {
			all.WriteByte(byte(c))
		}
		enc := EncodeName(all.String())
		if back, err := DecodeName(enc); err != nil || back != all.String() {
			t.Errorf("bytes %d to %d: %v", lo, lo+63, err)
		}
		for i := 0; i < len(enc); i++ {
			if c := enc[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._!~-", c) >= 0) {
				t.Fatalf("encoded byte %q", c)
			}
		}
	}
	// Names differing only in case get different file names.
	if EncodeName("Fast") == EncodeName("fast") {
		t.Error("case folded")
	}
}

// TestEncodeNameExtendsVersionFileNames: a SemVer version is encoded as
// per-version file names encode it.
func TestEncodeNameExtendsVersionFileNames(t *testing.T) {
	for _, v := range []string{"4.16.3", "4.17.0-rc.1", "4.16.3+amd64", "1.0.0-Alpha.X-1+Build.7", "0.0.0-0"} {
		if got, want := EncodeName(v)+".json", manifest.VersionFileName(v); got != want {
			t.Errorf("%s: %s, per-version file name %s", v, got, want)
		}
	}
}

func TestDecodeNameRefuses(t *testing.T) {
	for _, f := range []string{"", "A", "~2", "~zz", "~41", "~61", "~2b", "~2d", "a~2e", ".a", "!", "!A", "a b", "~5F"} {
		if got, err := DecodeName(f); err == nil {
			t.Errorf("DecodeName(%q) = %q, want an error", f, got)
		}
	}
}

// TestEncodeNameLong: names too long for a file name are hashed (the
// metas files split them instead).
func TestEncodeNameLong(t *testing.T) {
	long := strings.Repeat("a", MaxEncoded)
	if EncodeName(long) != long {
		t.Error("a name of MaxEncoded bytes is hashed")
	}
	h := EncodeName(long + "a")
	if !strings.HasPrefix(h, "!!") || len(h) != 66 || EncodeName(long+"b") == h {
		t.Errorf("long name encoded as %q", h)
	}
	if EncodeName(long) != metas.Encode(long) || h == metas.Encode(long+"a") {
		t.Error("catalog/metas encodes long names as views does")
	}
	if _, err := DecodeName(h); err == nil {
		t.Error("a hashed name decodes")
	}
}
