package cvo

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// normalizeID parses a cluster ID like github.com/google/uuid.Parse (which
// the CVO uses) and returns its canonical lower-case hyphenated form, which
// is what the CVO sends as the id parameter. A small copy avoids adding a
// dependency for 30 lines.
func normalizeID(s string) (string, error) {
	errFormat := errors.New("invalid UUID format")
	var raw string
	switch len(s) {
	case 36:
	case 36 + 9:
		if !strings.EqualFold(s[:9], "urn:uuid:") {
			return "", fmt.Errorf("invalid urn prefix: %q", s[:9])
		}
		s = s[9:]
	case 36 + 2:
		s = s[1:] // google/uuid skips the braces without checking them
	case 32:
		raw = s
	default:
		return "", fmt.Errorf("invalid UUID length: %d", len(s))
	}
	if raw == "" {
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return "", errFormat
		}
		raw = s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	}
	b, err := hex.DecodeString(raw)
	if err != nil {
		return "", errFormat
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}
