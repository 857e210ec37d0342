package mirror

import (
	"fmt"
	"slices"

	"github.com/upgraph/upgraph/release/graph"
)

// maxListRisks bounds the risks of the lists one answer's conditional
// edges make by merging the entries that list the same edge (an edge in
// one entry shares its list): the union serves each distinct list once,
// so an answer whose edges each merge a long list with a short one of
// their own would make output the product of its edges and risks. An
// endpoint that groups by risk list, as upstream and upgraph do, lists
// each edge once and merges nothing.
const maxListRisks = 1 << 18

// riskList is the risk list of the conditional edges of one answer that
// share it. An edge seen in one entry shares that entry's list; an edge
// in several entries gets a list merged for it, shared with every edge
// that had the same list and is in the same entry, so that the work and
// memory are linear in the answer, not in its edges times their risks.
type riskList struct {
	risks []graph.Risk
	refs  int             // edges whose list this is
	seen  map[string]bool // riskKey of each risk, once merged into
	owned bool            // risks is this list's own array, not an entry's
	key   string          // riskKey(risks), set once complete
}

// riskLists merges the conditional-edge entries of one answer.
type riskLists struct {
	url     string
	created int // risks in the lists merged, bounded by maxListRisks
}

// merge returns l with the risks of entry that it lacks appended, in
// entry order: l itself when no other edge shares it, else a new list,
// the one memo holds for l when another edge of this entry made it.
func (rl *riskLists) merge(l *riskList, entry []graph.Risk, memo map[*riskList]*riskList) (*riskList, error) {
	if m, ok := memo[l]; ok {
		l.refs--
		m.refs++
		return m, nil
	}
	m := l
	if l.refs > 1 {
		l.refs--
		m = &riskList{risks: l.risks, refs: 1}
		memo[l] = m
	}
	if m.seen == nil {
		m.seen = make(map[string]bool, len(m.risks)+len(entry))
		for _, q := range m.risks {
			m.seen[riskKey([]graph.Risk{q})] = true
		}
	}
	if !m.owned {
		m.risks = slices.Clone(m.risks)
		m.owned = true
		if err := rl.charge(len(m.risks)); err != nil {
			return nil, err
		}
	}
	for _, r := range entry {
		if k := riskKey([]graph.Risk{r}); !m.seen[k] {
			m.seen[k] = true
			m.risks = append(m.risks, r)
			if err := rl.charge(1); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func (rl *riskLists) charge(n int) error {
	rl.created += n
	if rl.created > maxListRisks {
		return fmt.Errorf("%s: the conditional edges' risk lists hold more than %d risks, merged per edge from the entries listing it: %w", rl.url, maxListRisks, ErrInconsistent)
	}
	return nil
}

// keyOf is riskKey(l.risks), computed once per list.
func (l *riskList) keyOf() string {
	if l.key == "" {
		l.key = riskKey(l.risks)
	}
	return l.key
}
