package edges

import "strings"

// alternatives splits a regular expression (RE2 syntax, as package regexp
// parses it) at its top-level '|': a string contains a match of a|b
// exactly when it contains a match of a or one of b, so a pattern joined
// from many blocks' patterns (annotate joins them with '|') can be
// matched piece by piece, each piece's results memoised across the
// patterns that share it. ok is false, and the pattern must be matched
// whole, where splitting could change the meaning: a flag group such as
// (?i) (it reaches past the '|'), \Q…\E quoting, a POSIX class inside
// brackets (its ']'), or unbalanced parentheses.
func alternatives(pattern string) (pieces []string, ok bool) {
	depth, start := 0, 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			if i+1 < len(pattern) && pattern[i+1] == 'Q' {
				return nil, false
			}
			i++ // the escaped character
		case '[':
			end, ok := classEnd(pattern, i)
			if !ok {
				return nil, false
			}
			i = end
		case '(':
			if rest := pattern[i+1:]; strings.HasPrefix(rest, "?") &&
				!strings.HasPrefix(rest, "?:") && !strings.HasPrefix(rest, "?P<") && !strings.HasPrefix(rest, "?<") {
				return nil, false // flags
			}
			depth++
		case ')':
			if depth--; depth < 0 {
				return nil, false
			}
		case '|':
			if depth == 0 {
				pieces = append(pieces, pattern[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, false
	}
	return append(pieces, pattern[start:]), true
}

// classEnd returns the index of the ']' closing the character class
// opened at pattern[open]; a ']' first in the class (after an optional
// '^') is a literal, and "[:" (a POSIX class) is declined.
func classEnd(pattern string, open int) (int, bool) {
	i := open + 1
	if i < len(pattern) && pattern[i] == '^' {
		i++
	}
	if i < len(pattern) && pattern[i] == ']' {
		i++
	}
	for ; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			if i+1 < len(pattern) && pattern[i+1] == ':' {
				return 0, false
			}
		case ']':
			return i, true
		}
	}
	return 0, false
}
