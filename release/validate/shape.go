package validate

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/tree/version"
)

// classify decides the file's shape as upstream's parser does (§3.6) and
// graph-data.rs requires (Y1): exactly {to, from} is a block; to, from,
// url, name, message and matchingRules make a risk (other keys ignored);
// anything else is neither, which upstream skips silently.
func (c *report) classify(e *edgeFile) {
	fail := func(line int, format string, args ...any) {
		c.errorf(e.file, line, "Y1", "neither an unconditional block (exactly to and from) nor a conditional risk (to, from, url, name, message, matchingRules): "+format, args...)
	}
	m := e.m
	if m == nil {
		fail(1, "want a mapping")
		return
	}
	if m.dupLine != 0 {
		fail(m.dupLine, "duplicate key %q", m.dupKey)
		return
	}
	to, line, err := semverField(m, "to")
	if err != nil {
		fail(line, "%v", err)
		return
	}
	from, line, err := regexField(m, "from")
	if err != nil {
		fail(line, "%v", err)
		return
	}
	if len(m.keys) == 2 {
		e.shape, e.to, e.from = block, to, from
		return
	}
	if line, err := riskFields(m); err != nil {
		fail(line, "%v", err)
		return
	}
	e.shape, e.to, e.from = risk, to, from
}

func stringField(m *mapping, key string) (string, int, error) {
	v, ok := m.values[key]
	if !ok {
		return "", m.node.Line, fmt.Errorf("missing %q", key)
	}
	if !isString(v) {
		return "", v.Line, fmt.Errorf("%s must be a string, got %s", key, describe(v))
	}
	return v.Value, v.Line, nil
}

func semverField(m *mapping, key string) (version.Version, int, error) {
	s, line, err := stringField(m, key)
	if err != nil {
		return version.Version{}, line, err
	}
	v, err := version.Parse(s)
	if err != nil {
		return version.Version{}, line, fmt.Errorf("%s: %v", key, err)
	}
	return v, line, nil
}

func regexField(m *mapping, key string) (*regexp.Regexp, int, error) {
	s, line, err := stringField(m, key)
	if err != nil {
		return nil, line, err
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, line, fmt.Errorf("%s: regular expression does not compile: %v", key, err)
	}
	return re, line, nil
}

// riskFields checks the conditional-risk keys the way upstream
// deserializes them: matchingRules items may omit type and promql, and
// keys it does not know are ignored.
func riskFields(m *mapping) (int, error) {
	for _, k := range []string{"url", "name", "message"} {
		if _, line, err := stringField(m, k); err != nil {
			return line, err
		}
	}
	rules, ok := m.values["matchingRules"]
	switch {
	case !ok:
		return m.node.Line, fmt.Errorf("missing %q", "matchingRules")
	case rules.Kind != yaml.SequenceNode:
		return rules.Line, fmt.Errorf("matchingRules must be a list, got %s", describe(rules))
	}
	for _, item := range rules.Content {
		rule := asMapping(item)
		if rule == nil {
			return item.Line, fmt.Errorf("matchingRules item must be a mapping, got %s", describe(item))
		}
		if rule.has("type") {
			if _, line, err := stringField(rule, "type"); err != nil {
				return line, err
			}
		}
		pn, ok := rule.values["promql"]
		if !ok {
			continue
		}
		pm := asMapping(pn)
		if pm == nil {
			return pn.Line, fmt.Errorf("promql must be a mapping, got %s", describe(pn))
		}
		if pm.has("promql") {
			if _, line, err := stringField(pm, "promql"); err != nil {
				return line, fmt.Errorf("promql.%v", err)
			}
		}
	}
	return 0, nil
}
