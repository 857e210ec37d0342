package clip

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("1", 100_000)
	for _, tc := range []struct{ in, quote, text string }{
		{"4.16.1", `"4.16.1"`, "4.16.1"},
		{"", `""`, ""},
		{long, `"` + long[:Max] + `"… (100000 bytes)`, long[:Max] + "… (100000 bytes)"},
		// Cut at a rune boundary: é is two bytes, and the 64th byte is in
		// the middle of one.
		{strings.Repeat("a", 63) + strings.Repeat("é", 10), `"` + strings.Repeat("a", 63) + `"… (83 bytes)`, strings.Repeat("a", 63) + "… (83 bytes)"},
	} {
		if got := Quote(tc.in); got != tc.quote {
			t.Errorf("Quote(%.20q…) = %.100q, want %.100q", tc.in, got, tc.quote)
		}
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%.20q…) = %.100q, want %.100q", tc.in, got, tc.text)
		}
	}
}
