package views

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// MaxSegment is the longest file name (extension included) a catalog's
// files may get: most file systems and object stores take 255 bytes per
// path segment.
const MaxSegment = 255

// MaxEncoded is the longest encoded name: a longer one is replaced by
// "!!" and the hex SHA-256 of the name, which no other encoded name
// begins with (catalog/metas, whose files a query must find from the
// value alone, splits such names into directories instead).
const MaxEncoded = 200

// EncodeName encodes a package, channel or bundle name as a file name
// (without extension) that is safe on every file system and object store,
// case-insensitive ones included, and in a URL path without escaping. It
// extends the encoding of release versions in per-version file names
// (tree/manifest.VersionFileName) to arbitrary bytes:
//
//   - [0-9a-z-] are kept, and so is '.' except as the first byte;
//   - '+' becomes '_';
//   - an upper-case letter X becomes "!x";
//   - any other byte, a leading '.' included, becomes '~' and two
//     lower-case hex digits ("_" is "~5f", "!" is "~21", "~" is "~7e",
//     "/" is "~2f", a leading "." is "~2e").
//
// The encoding is reversible (DecodeName) but for names longer than
// MaxEncoded once encoded, which are hashed; a SemVer version is encoded
// exactly as tree/manifest.VersionFileName encodes it. No name encodes to ""
// except "", which no valid catalog has; no file name starts with '.'
// (hidden, and not a tree path). Up to MaxEncoded bytes, but for a
// trailing ".jsonl", it is catalog/metas.Encode's encoding, which names
// the blob files by schema, package and name.
func EncodeName(s string) string {
	if !nameNeedsEscape(s) && len(s) <= MaxEncoded {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.' && i > 0:
			b.WriteByte(c)
		case c == '+':
			b.WriteByte('_')
		case c >= 'A' && c <= 'Z':
			b.WriteByte('!')
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte('~')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
	}
	if b.Len() > MaxEncoded {
		sum := sha256.Sum256([]byte(s))
		return "!!" + hexString(sum[:])
	}
	return b.String()
}

func hexString(b []byte) string { return hex.EncodeToString(b) }

func nameNeedsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' && i > 0) {
			return true
		}
	}
	return false
}

// DecodeName reverses EncodeName; it rejects anything EncodeName does not
// produce, so every name has exactly one file name, and a hashed name.
func DecodeName(f string) (string, error) {
	if strings.HasPrefix(f, "!!") {
		return "", fmt.Errorf("file name %q: a hashed name (longer than %d bytes once encoded)", f, MaxEncoded)
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.' && i > 0:
			b.WriteByte(c)
		case c == '_':
			b.WriteByte('+')
		case c == '!' && i+1 < len(f) && f[i+1] >= 'a' && f[i+1] <= 'z':
			b.WriteByte(f[i+1] - 'a' + 'A')
			i++
		case c == '~' && i+2 < len(f) && isLowerHex(f[i+1]) && isLowerHex(f[i+2]):
			v := unhex(f[i+1])<<4 | unhex(f[i+2])
			if (v >= 'a' && v <= 'z') || (v >= '0' && v <= '9') || v == '-' || v == '+' || (v >= 'A' && v <= 'Z') || (v == '.' && b.Len() > 0) {
				return "", fmt.Errorf("file name %q: %q is written as itself, not escaped", f, rune(v))
			}
			b.WriteByte(v)
			i += 2
		default:
			return "", fmt.Errorf("file name %q: byte %d (%q) is not in the encoding", f, i, c)
		}
	}
	if b.Len() == 0 {
		return "", errors.New("empty file name")
	}
	if len(f) > MaxEncoded {
		return "", fmt.Errorf("file name %q: longer than %d bytes (such names are hashed)", f, MaxEncoded)
	}
	return b.String(), nil
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}
