package manifest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tree/version"
)

func TestVersionFileName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"4.16.3", "4.16.3.json"},
		{"4.17.0-rc.1", "4.17.0-rc.1.json"},
		{"1.0.0+a.b", "1.0.0_a.b.json"},
		{"1.0.0-RC.1", "1.0.0-!r!c.1.json"},
		{"4.2.10-s390x+s390x", "4.2.10-s390x_s390x.json"},
		{"4.0.0-0.okd-0", "4.0.0-0.okd-0.json"},
		{"1.0.0-Ab+Cd", "1.0.0-!ab_!cd.json"},
		{"1.0.0-alpha-Z9", "1.0.0-alpha-!z9.json"},
	} {
		if got := VersionFileName(tc.in); got != tc.want {
			t.Errorf("VersionFileName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// decodeFileName inverts VersionFileName, proving the encoding loses nothing.
func decodeFileName(name string) (string, error) {
	s, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return "", errors.New("no .json suffix")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '_':
			b.WriteByte('+')
		case c == '!':
			if i+1 >= len(s) || s[i+1] < 'a' || s[i+1] > 'z' {
				return "", fmt.Errorf("bad escape at %d", i)
			}
			i++
			b.WriteByte(s[i] - 'a' + 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func TestVersionFileNameInjective(t *testing.T) {
	versions := []string{
		"1.0.0", "1.0.0-a", "1.0.0-A", "1.0.0+a", "1.0.0+A", "1.0.0-a+b", "1.0.0-a.b", "1.0.0+a.b",
		"1.0.0-a-b", "1.0.0-a.b-c", "1.0.0-ab", "1.0.0-Ab", "1.0.0-aB", "1.0.0-AB", "1.0.0-a-B",
		"1.0.0-x.Y", "1.0.0-x.y", "1.0.0+x.Y", "1.0.0-x+y", "1.0.0-x+Y", "1.0.0-X+y", "1.0.0+x-y",
		"1.0.0-rc.1", "1.0.0-RC.1", "1.0.0-Rc.1", "1.0.0-rC.1", "1.0.0-0", "1.0.0-0.0", "1.0.0+0.0",
		"1.0.0-ama", "1.0.0-!a", "10.0.0", "1.00.0-x", "4.2.10-s390x+s390x", "4.2.10-s390x", "4.2.10+s390x",
	}
	byName := map[string]string{}
	byFolded := map[string]string{}
	for _, v := range versions {
		if _, err := version.Parse(v); err != nil {
			continue // only SemVer versions are ever served
		}
		name := VersionFileName(v)
		if prev, dup := byName[name]; dup {
			t.Errorf("VersionFileName(%q) = VersionFileName(%q) = %q", v, prev, name)
		}
		byName[name] = v
		// Distinct even on a case-insensitive file system.
		folded := strings.ToLower(name)
		if prev, dup := byFolded[folded]; dup {
			t.Errorf("VersionFileName(%q) and VersionFileName(%q) differ only in case: %q", v, prev, folded)
		}
		byFolded[folded] = v
		for _, c := range name {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || strings.ContainsRune(".-_!", c)) {
				t.Errorf("VersionFileName(%q) = %q contains %q", v, name, c)
			}
		}
		if back, err := decodeFileName(name); err != nil || back != v {
			t.Errorf("decode(VersionFileName(%q) = %q) = %q, %v", v, name, back, err)
		}
	}
	if len(byName) < 30 {
		t.Fatalf("only %d versions tested", len(byName))
	}
}
