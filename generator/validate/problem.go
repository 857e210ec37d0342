package validate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Severity says whether a problem fails validation.
type Severity string

const (
	// Error is what graph-data's CI (or upgraph generate) would reject.
	Error Severity = "error"
	// Warning is suspicious but publishable data.
	Warning Severity = "warning"
)

// Problem is one finding, tied to a file of the graph-data tree (a path
// relative to its root) and, where known, a line (0: the file as a whole
// or a path that does not exist).
type Problem struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
}

// String is the text form, file:line: severity: message [rule], which
// editors and CI annotators parse like a compiler's.
func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s: %s: %s [%s]", loc, p.Severity, p.Message, p.Rule)
}

// Problems is a validation result, sorted by file and line.
type Problems []Problem

// Count returns how many problems have severity s.
func (ps Problems) Count(s Severity) int {
	n := 0
	for _, p := range ps {
		if p.Severity == s {
			n++
		}
	}
	return n
}

// CountByRule returns the number of problems per rule id.
func (ps Problems) CountByRule() map[string]int {
	m := map[string]int{}
	for _, p := range ps {
		m[p.Rule]++
	}
	return m
}

// WriteText writes one line per problem.
func (ps Problems) WriteText(w io.Writer) error {
	for _, p := range ps {
		if _, err := fmt.Fprintln(w, p.String()); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the problems as one JSON array ([] when there are none,
// so consumers never have to special-case null).
func (ps Problems) WriteJSON(w io.Writer) error {
	if ps == nil {
		ps = Problems{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // messages quote regexes and URLs
	return enc.Encode(ps)
}

// finish sorts the problems and drops schema findings that repeat, on the
// same line, what a specific rule already explains better.
func finish(ps []Problem) Problems {
	type spot struct {
		file string
		line int
	}
	specific := map[spot]bool{}
	for _, p := range ps {
		if p.Rule != RuleSchema && p.Severity == Error {
			specific[spot{p.File, p.Line}] = true
		}
	}
	out := ps[:0]
	for _, p := range ps {
		if p.Rule == RuleSchema && specific[spot{p.File, p.Line}] {
			continue
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(ruleRank(a.Rule), ruleRank(b.Rule)), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(Problems(out))
}
