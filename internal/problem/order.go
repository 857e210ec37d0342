package problem

import (
	"cmp"
	"slices"
)

// Order is the report order of a validator's rules: each rule id's rank,
// in the order the rules are listed; an id not listed comes last.
type Order map[string]int

// NewOrder ranks ids in the order given.
func NewOrder(ids ...string) Order {
	o := make(Order, len(ids))
	for i, id := range ids {
		if _, ok := o[id]; !ok {
			o[id] = i
		}
	}
	return o
}

// OrderOf ranks the ids of rules (id says a rule's) in the order listed.
func OrderOf[R any](rules []R, id func(R) string) Order {
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = id(r)
	}
	return NewOrder(ids...)
}

// Rank is id's place in the order; an id not listed comes last.
func (o Order) Rank(id string) int {
	if r, ok := o[id]; ok {
		return r
	}
	return len(o)
}

// Sort orders ps by file, line, rule (in o), message, what it is about
// (package, channel, bundle) and severity, and drops exact duplicates;
// it sorts in place and returns the shortened slice.
func (o Order) Sort(ps Problems) Problems {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(o.Rank(a.Rule), o.Rank(b.Rule)), cmp.Compare(a.Message, b.Message),
			cmp.Compare(a.Package, b.Package), cmp.Compare(a.Channel, b.Channel), cmp.Compare(a.Bundle, b.Bundle),
			cmp.Compare(a.Severity, b.Severity))
	})
	return slices.Compact(ps)
}
