package english

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 hops"}, {1, "1 hop"}, {2, "2 hops"}, {-1, "-1 hops"}} {
		if got := Count(c.n, "hop"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		s, want string
	}{
		{"", ""},
		{"a b c", "a b c"},
		{"aaa bbb ccc", "aaa bbb\n  ccc"},
		{"aaaaaaaaaaa b", "aaaaaaaaaaa\n  b"}, // a word longer than the width stands alone
		{"  a   b  ", "a b"},
	} {
		if got := Wrap(c.s, 7, "  "); got != c.want {
			t.Errorf("Wrap(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
