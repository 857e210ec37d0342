// Package clip bounds what an error message quotes of a user's value: a
// bad value can be a 100 KB string, and echoing it whole buries the
// message (and floods logs and terminals).
package clip

import (
	"strconv"
	"unicode/utf8"
)

// Max is the number of bytes of a value a message quotes.
const Max = 64

// Quote is strconv.Quote(s) for a short s; a longer one is cut to its
// first Max bytes (at a rune boundary) and says how long it was.
func Quote(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	return strconv.Quote(prefix(s)) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Text is s as it is when short, else cut as Quote cuts it (unquoted), for
// values already shown raw, such as JSON snippets.
func Text(s string) string {
	if len(s) <= Max {
		return s
	}
	return prefix(s) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

func prefix(s string) string {
	cut := Max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
