package validate

import (
	"github.com/upgraph/upgraph/internal/problem"
)

// Severity, Problem and Problems are the report format graph-data
// validation shares with catalog validation (package internal/problem).
// Error is what graph-data's CI (or upgraph generate) would reject;
// Warning is suspicious but publishable data. A Problem is tied to a file
// of the graph-data tree and, where known, a line.
type (
	Severity = problem.Severity
	Problem  = problem.Problem
	Problems = problem.Problems
)

const (
	Error   = problem.Error
	Warning = problem.Warning
)

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
	return ruleOrder.Sort(out)
}
