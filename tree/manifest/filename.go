package manifest

import "strings"

// VersionFileName encodes a served version as a file name that is safe on every
// file system and object store, case-insensitive ones included:
// [0-9a-z.-] are kept, '+' becomes '_', and an upper-case letter X becomes
// "!x". SemVer allows no other characters, and '_' and '!' never occur in
// a version, so the encoding is reversible; typical versions ("4.16.3",
// "4.17.0-rc.1") are unchanged.
func VersionFileName(version string) string {
	if !needsEscape(version) {
		return version + ".json"
	}
	var s strings.Builder
	for i := 0; i < len(version); i++ {
		c := version[i]
		switch {
		case c == '+':
			s.WriteByte('_')
		case c >= 'A' && c <= 'Z':
			s.WriteByte('!')
			s.WriteByte(c + 'a' - 'A')
		default:
			s.WriteByte(c)
		}
	}
	return s.String() + ".json"
}

func needsEscape(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '+' || (c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}
