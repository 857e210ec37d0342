// Package english words numbers and paragraphs for the reports upgraph
// prints for people.
package english

import (
	"strconv"
	"strings"
)

// Count is n and noun, the noun in the plural unless n is 1: "1 hop",
// "3 hops". Only nouns whose plural takes an "s" are passed to it.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Wrap breaks s at spaces into lines of at most width bytes (a longer
// word stands alone on its line), joined by a newline and indent.
func Wrap(s string, width int, indent string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	lines = append(lines, line)
	return strings.Join(lines, "\n"+indent)
}
