package diff

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// conditionalLines name the risks of each conditional edge; what a risk
// says is shown once, by riskLines, not on every edge it is on.
func (g *GraphDiff) conditionalLines() []line {
	var es []keyed[Edge]
	for _, c := range g.Conditional.Added {
		es = append(es, keyed[Edge]{c.Edge, line{sign: '+', text: "conditional edge " + c.Edge.String() + ": " + strings.Join(c.Risks, ", ")}})
	}
	for _, c := range g.Conditional.Removed {
		es = append(es, keyed[Edge]{c.Edge, line{sign: '-', text: "conditional edge " + c.Edge.String() + ": " + strings.Join(c.Risks, ", ")}})
	}
	for _, c := range g.Conditional.Changed {
		text := fmt.Sprintf("conditional edge %s: %s → %s", c.Edge, strings.Join(c.Old, ", "), strings.Join(c.New, ", "))
		es = append(es, keyed[Edge]{c.Edge, line{sign: '~', text: text}})
	}
	return sortedLines(es, compareEdges)
}

// riskLines show an added risk in full and a removed one by name.
func (g *GraphDiff) riskLines() []line {
	var es []keyed[string]
	for _, r := range g.Risks.Added {
		es = append(es, keyed[string]{r.Name, line{sign: '+', text: "risk " + r.Name, sub: riskFields('+', r)}})
	}
	for _, r := range g.Risks.Removed {
		es = append(es, keyed[string]{r.Name, line{sign: '-', text: "risk " + r.Name}})
	}
	for _, c := range g.Risks.Changed {
		es = append(es, keyed[string]{c.Name, line{sign: '~', text: "risk " + c.Name, sub: riskChangeLines(c)}})
	}
	return sortedLines(es, strings.Compare)
}

// riskFields are the fields of a risk besides its name, one a line.
func riskFields(sign byte, r Risk) []line {
	ls := []line{{sign: sign, text: "url: " + r.URL}, {sign: sign, text: "message: " + strconv.Quote(r.Message)}}
	for i, m := range r.MatchingRules {
		ls = append(ls, line{sign: sign, text: fmt.Sprintf("matchingRules[%d]: %s", i, ruleText(m))})
	}
	return ls
}

// riskChangeLines show the fields that differ. A name with several
// definitions on a side (a producer's inconsistency) is shown whole.
func riskChangeLines(c RiskChange) []line {
	if len(c.Old) != 1 || len(c.New) != 1 {
		var ls []line
		for _, r := range c.Old {
			ls = append(ls, line{sign: '-', text: "definition: " + riskJSON(r)})
		}
		for _, r := range c.New {
			ls = append(ls, line{sign: '+', text: "definition: " + riskJSON(r)})
		}
		return ls
	}
	old, new := riskFields('-', c.Old[0]), riskFields('+', c.New[0])
	var ls []line
	// Fields pair up by position except for rules one side lacks.
	for i := range max(len(old), len(new)) {
		switch {
		case i >= len(old):
			ls = append(ls, new[i])
		case i >= len(new):
			ls = append(ls, old[i])
		case old[i].text != new[i].text:
			ls = append(ls, old[i], new[i])
		}
	}
	return ls
}

func riskJSON(r Risk) string {
	b, _ := json.Marshal(r) // plain strings and slices: cannot fail
	return string(b)
}

func ruleText(m MatchingRule) string {
	if m.PromQL == nil {
		return m.Type
	}
	return m.Type + " " + strconv.Quote(m.PromQL.PromQL)
}
