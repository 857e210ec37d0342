// Package problem is the one report format of upgraph validate: a
// finding tied to a file and line, printed as `file:line: severity:
// message [RULE]` (which editors and CI annotators parse like a
// compiler's) or as a JSON array. Graph-data validation
// (release/validate) and catalog validation (catalog/model) both report
// in it, so their findings print, count and combine alike.
package problem

import (
	"encoding/json"
	"fmt"
	"io"
)

// Severity says whether a problem fails validation.
type Severity string

const (
	// Error fails validation: what graph-data's CI, upgraph generate or
	// opm validate would reject.
	Error Severity = "error"
	// Warning is publishable but worth knowing.
	Warning Severity = "warning"
)

// Problem is one finding: the file (relative to the root validated) and
// the line (0: the file as a whole, a path that does not exist, or a blob
// built in memory). Package, Channel and Bundle name what a catalog
// problem is about; graph-data problems leave them empty.
type Problem struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
	Package  string   `json:"package,omitempty"`
	Channel  string   `json:"channel,omitempty"`
	Bundle   string   `json:"bundle,omitempty"`
}

// String is the text form, file:line: severity: message [rule]; "-"
// stands for a file that is not known.
func (p Problem) String() string {
	loc := p.File
	if loc == "" {
		loc = "-"
	}
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, p.Line)
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
