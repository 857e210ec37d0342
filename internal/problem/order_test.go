package problem

import (
	"slices"
	"testing"
)

// TestOrderSort: by file, line, rule in the order listed (an unknown rule
// last), message, subject and severity; exact duplicates dropped.
func TestOrderSort(t *testing.T) {
	o := NewOrder("R2", "R1")
	p := func(file string, line int, rule, msg, pkg string, sev Severity) Problem {
		return Problem{File: file, Line: line, Rule: rule, Message: msg, Package: pkg, Severity: sev}
	}
	for _, tc := range []struct {
		name     string
		in, want Problems
	}{
		{name: "empty", in: Problems{}, want: Problems{}},
		{name: "file then line",
			in:   Problems{p("b", 1, "R1", "m", "", Error), p("a", 2, "R1", "m", "", Error), p("a", 1, "R1", "m", "", Error)},
			want: Problems{p("a", 1, "R1", "m", "", Error), p("a", 2, "R1", "m", "", Error), p("b", 1, "R1", "m", "", Error)}},
		{name: "rule order, unknown last",
			in:   Problems{p("a", 1, "X", "m", "", Error), p("a", 1, "R1", "m", "", Error), p("a", 1, "R2", "m", "", Error)},
			want: Problems{p("a", 1, "R2", "m", "", Error), p("a", 1, "R1", "m", "", Error), p("a", 1, "X", "m", "", Error)}},
		{name: "message, package, severity",
			in:   Problems{p("a", 1, "R1", "n", "", Error), p("a", 1, "R1", "m", "q", Warning), p("a", 1, "R1", "m", "q", Error), p("a", 1, "R1", "m", "p", Error)},
			want: Problems{p("a", 1, "R1", "m", "p", Error), p("a", 1, "R1", "m", "q", Error), p("a", 1, "R1", "m", "q", Warning), p("a", 1, "R1", "n", "", Error)}},
		{name: "duplicates dropped",
			in:   Problems{p("a", 1, "R1", "m", "", Error), p("a", 1, "R1", "m", "", Error)},
			want: Problems{p("a", 1, "R1", "m", "", Error)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := o.Sort(slices.Clone(tc.in)); !slices.Equal(got, tc.want) {
				t.Errorf("Sort = %v, want %v", got, tc.want)
			}
		})
	}
	if o.Rank("R2") != 0 || o.Rank("R1") != 1 || o.Rank("nope") != 2 {
		t.Errorf("Rank: R2 %d, R1 %d, unknown %d", o.Rank("R2"), o.Rank("R1"), o.Rank("nope"))
	}
}
