package bundle

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with one file of a tree or bundle.
type Problem struct {
	// File is the tree-relative name, index.json for the manifest itself,
	// or the bundle's file name for the archive as a whole.
	File   string
	Reason string
}

// Error lists everything found wrong with a tree or bundle, so that one
// run names every bad file.
type Error struct {
	Path     string
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: verification failed, %d problem", e.Path, len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  %s: %s", p.File, p.Reason)
	}
	return b.String()
}

// problems collects Problems.
type problems []Problem

func (ps *problems) add(file, format string, args ...any) {
	*ps = append(*ps, Problem{File: file, Reason: fmt.Sprintf(format, args...)})
}

// err sorts the problems by file and returns them as an *Error, or nil.
func (ps problems) err(path string) error {
	if len(ps) == 0 {
		return nil
	}
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b Problem) int { return cmp.Compare(a.File, b.File) })
	return &Error{Path: path, Problems: sorted}
}

// Errors returns ps, sorted by file, as an *Error about path, or nil.
func Errors(path string, ps []Problem) error { return problems(ps).err(path) }
