package edges

import (
	"regexp"
	"slices"
	"testing"
)

func TestAlternatives(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    []string // nil: not split
	}{
		{`4[.]13[.].*`, []string{`4[.]13[.].*`}},
		{`4[.]13[.].*|.*|^4[.](11[.].*|12[.]([0-9]|40)[+].*)$`, []string{`4[.]13[.].*`, `.*`, `^4[.](11[.].*|12[.]([0-9]|40)[+].*)$`}},
		{`a\|b|c`, []string{`a\|b`, `c`}},
		{`[|]|[]|]|[^]|]|x`, []string{`[|]`, `[]|]`, `[^]|]`, `x`}},
		{`[\]|]|y`, []string{`[\]|]`, `y`}},
		{`(?:a|b)|(?P<n>c|d)|(?<m>e)`, []string{`(?:a|b)`, `(?P<n>c|d)`, `(?<m>e)`}},
		{`a||b|`, []string{`a`, ``, `b`, ``}},
		{`(?i)a|b`, nil},
		{`(?i:a)|b`, nil},
		{`\Qa|b\E|c`, nil},
		{`[[:alpha:]]|b`, nil},
		{`a)|(b`, nil},
		{`(a|b`, nil},
		{`[a|b`, nil},
	} {
		got, ok := alternatives(tc.pattern)
		if !ok {
			got = nil
		}
		if !slices.Equal(got, tc.want) || ok != (tc.want != nil) {
			t.Errorf("alternatives(%q) = %q, %v; want %q", tc.pattern, got, ok, tc.want)
		}
	}
}

// TestPiecesMatchLikeWhole: a version matches a pattern exactly when it
// matches one of the pattern's pieces.
func TestPiecesMatchLikeWhole(t *testing.T) {
	patterns := []string{
		`4[.]13[.].*|4[.]14[.]0[+].*`,
		`^4[.](18[.][0-9]*|19[.]([0-9]|1[0-2]))[+].*$|4[.]10[.].*`,
		`^4\.1[0-9]\.0-rc\.[0-9]+\+amd64$|arm64$|^4\.12\.`,
		`a||b`,
		`(?i)AMD64|4[.]12`,
		`x|[[:digit:]]+[.]9[.]`,
		`^$|4.1.0`,
	}
	versions := []string{"4.13.5+amd64", "4.14.0+arm64", "4.14.1+amd64", "4.18.3+amd64", "4.19.12+s390x", "4.19.13+amd64",
		"4.10.0-rc.1+amd64", "4.12.0+multi", "4.11.0+amd64", "4.1.0", "4x1y0", "", "4.9.9+ppc64le"}
	m := newMatcher(nil)
	for _, p := range patterns {
		whole := regexp.MustCompile(p)
		pieces, err := m.pieces(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range versions {
			any := slices.ContainsFunc(pieces, func(re *regexp.Regexp) bool { return re.MatchString(v) })
			if any != whole.MatchString(v) {
				t.Errorf("%q on %q: pieces %v, whole %v", p, v, any, whole.MatchString(v))
			}
		}
	}
	if _, err := m.pieces(`a|(b`); err == nil {
		t.Error("an invalid pattern compiled")
	}
}
