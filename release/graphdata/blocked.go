package graphdata

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

// blockedEdge classifies a blocked-edges file by its key set (spec §3.6):
// exactly {to, from} is an unconditional block; to, from, url, name,
// message and matchingRules make a conditional risk (other keys ignored);
// anything else matches neither shape.
func (l *loader) blockedEdge(file string, data []byte) {
	m, err := parseMapping(data)
	if err != nil {
		l.report(&Problem{File: file, Line: yamlLine(err), Category: Deserialize, Message: "invalid YAML: " + err.Error()})
		return
	}
	block, blockErr := parseBlock(file, m, l.regexps)
	if blockErr == nil {
		if len(m.keys) == 2 {
			l.gd.Blocks = append(l.gd.Blocks, block)
			return
		}
		risk, riskErr := parseRisk(m)
		if riskErr == nil {
			l.gd.Risks = append(l.gd.Risks, RiskFile{Block: block, Risk: risk})
			return
		}
		blockErr = riskErr
	}
	l.report(&Problem{File: file, Line: lineOf(blockErr, m), Category: Deserialize,
		Message: "neither an unconditional block (exactly \"to\" and \"from\") nor a conditional risk (to, from, url, name, message, matchingRules): " + blockErr.Error()})
}

// lineErr carries the line of a problem found inside a file.
type lineErr struct {
	line int
	msg  string
}

func (e *lineErr) Error() string { return e.msg }

func errAt(line int, format string, args ...any) error {
	return &lineErr{line: line, msg: fmt.Sprintf(format, args...)}
}

func lineOf(err error, m *mapping) int {
	if le, ok := err.(*lineErr); ok {
		return le.line
	}
	return m.node.Line
}

// parseBlock reads to and from; regexps memoises compiled patterns (nil:
// none), since a few hundred patterns serve thousands of files.
func parseBlock(file string, m *mapping, regexps map[string]*regexp.Regexp) (Block, error) {
	to, line, err := m.str("to")
	if err != nil {
		return Block{}, errAt(line, "%v", err)
	}
	tv, err := version.Parse(to)
	if err != nil {
		return Block{}, errAt(line, "to: %v", err)
	}
	from, fline, err := m.str("from")
	if err != nil {
		return Block{}, errAt(fline, "%v", err)
	}
	re, ok := regexps[from]
	if !ok {
		if re, err = regexp.Compile(from); err != nil {
			return Block{}, errAt(fline, "from: regular expression does not compile: %v", err)
		}
		if regexps != nil {
			regexps[from] = re
		}
	}
	return Block{File: file, Line: m.lines["to"], To: tv, From: re}, nil
}

func parseRisk(m *mapping) (graph.Risk, error) {
	var r graph.Risk
	for _, f := range []struct {
		key string
		dst *string
	}{{"url", &r.URL}, {"name", &r.Name}, {"message", &r.Message}} {
		v, line, err := m.str(f.key)
		if err != nil {
			return r, errAt(line, "%v", err)
		}
		*f.dst = v
	}
	rules, ok := m.values["matchingRules"]
	if !ok {
		return r, errAt(m.node.Line, "missing \"matchingRules\"")
	}
	if rules.Kind != yaml.SequenceNode {
		return r, errAt(rules.Line, "matchingRules must be a list, got %s", kindName(rules))
	}
	for _, item := range rules.Content {
		rule, err := parseRule(item)
		if err != nil {
			return r, err
		}
		r.MatchingRules = append(r.MatchingRules, rule)
	}
	return r, nil
}

// parseRule reads {type, promql: {promql}}; both default to empty and other
// keys are ignored, as upstream deserializes them.
func parseRule(n *yaml.Node) (graph.MatchingRule, error) {
	var rule graph.MatchingRule
	m, err := asMapping(n)
	if err != nil {
		return rule, errAt(n.Line, "matchingRules item: %v", err)
	}
	if _, ok := m.values["type"]; ok {
		t, line, err := m.str("type")
		if err != nil {
			return rule, errAt(line, "matchingRules item: %v", err)
		}
		rule.Type = t
	}
	if pn, ok := m.values["promql"]; ok {
		pm, err := asMapping(pn)
		if err != nil {
			return rule, errAt(pn.Line, "promql: %v", err)
		}
		if _, ok := pm.values["promql"]; ok {
			q, line, err := pm.str("promql")
			if err != nil {
				return rule, errAt(line, "promql: %v", err)
			}
			rule.PromQL = q
		}
	}
	return rule, nil
}

// yamlLine extracts "line N" from a yaml.v3 error, or 0.
func yamlLine(err error) int {
	var line int
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		fmt.Sscanf(te.Errors[0], "line %d", &line)
		return line
	}
	msg := err.Error()
	for i := 0; i+5 < len(msg); i++ {
		if msg[i:i+5] == "line " {
			fmt.Sscanf(msg[i:], "line %d", &line)
			return line
		}
	}
	return 0
}
