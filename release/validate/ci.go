package validate

import (
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// camelCase is graph-data CI's pattern for risk names: a risk name becomes
// a condition Reason on the cluster, which must be CamelCase.
var camelCase = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*$`)

// ciRules runs hack/validate-blocked-edges.py's per-file checks (B3–B13).
// Unlike the script, which stops at the first failure, it reports all.
func (c *report) ciRules(e *edgeFile, root *yaml.Node) {
	m := e.m
	if m == nil {
		line := 1
		if root != nil {
			line = root.Line
		}
		c.errorf(e.file, line, "B3", "want a mapping with 'to' and 'from', got %s", describeRoot(root))
		return
	}
	for _, k := range []string{"to", "from"} {
		if !m.has(k) {
			c.errorf(e.file, m.node.Line, "B3", "'%s' is a required property", k)
		}
	}
	if to, ok := m.values["to"]; ok && m.has("name") && !strings.HasPrefix(path.Base(e.file), to.Value) {
		c.errorf(e.file, to.Line, "B4", "conditional risk to version %s should be declared in a %s-<...>.yaml file", to.Value, to.Value)
	}
	if v, ok := m.values["url"]; ok && !(isPyString(v) && strings.HasPrefix(v.Value, "https://")) {
		c.errorf(e.file, v.Line, "B5", "url must be an https:// URI, not %s", describe(v))
	}
	if v, ok := m.values["name"]; ok && !(isPyString(v) && camelCase.MatchString(v.Value)) {
		c.errorf(e.file, v.Line, "B6", "name must be a CamelCase reason matching %s, not %s", camelCase, describe(v))
	}
	if v, ok := m.values["message"]; ok && !isPyString(v) {
		c.errorf(e.file, v.Line, "B7", "message must be a string, not %s", describe(v))
	}
	if rules, ok := m.values["matchingRules"]; ok {
		for _, k := range []string{"url", "name", "message"} {
			if !m.has(k) {
				c.errorf(e.file, m.line("matchingRules"), "B8", "when matchingRules is set, %s must be set", k)
			}
		}
		c.matchingRules(e.file, rules)
	}
}

func describeRoot(n *yaml.Node) string {
	if n == nil {
		return "an empty document"
	}
	return describe(n)
}

func (c *report) matchingRules(file string, rules *yaml.Node) {
	if rules.Kind != yaml.SequenceNode || len(rules.Content) == 0 {
		c.errorf(file, rules.Line, "B9", "matchingRules must be an array with at least one member, not %s", describe(rules))
		return
	}
	seen := map[string]bool{}
	for i, item := range rules.Content {
		rule := asMapping(item)
		if rule == nil {
			c.errorf(file, item.Line, "B10", "matchingRules[%d] must be a mapping with a type, not %s", i, describe(item))
			continue
		}
		t, ok := rule.values["type"]
		if !ok {
			c.errorf(file, item.Line, "B10", "type must be set for matchingRules[%d]", i)
			continue
		}
		if seen[t.Value] {
			c.errorf(file, t.Line, "B10", "type %s appears multiple times in matchingRules", t.Value)
			continue
		}
		seen[t.Value] = true
		switch {
		case !isPyString(t) || (t.Value != "Always" && t.Value != "PromQL"):
			c.errorf(file, t.Line, "B11", "unrecognized matchingRules[%d] type %s (want Always or PromQL)", i, describe(t))
		case t.Value == "Always":
			if k, line := extraKey(rule, "type"); k != "" {
				c.errorf(file, line, "B12", "unrecognized key %q in 'Always' rule", k)
			}
		default:
			c.promQLRule(file, rule)
		}
	}
}

func (c *report) promQLRule(file string, rule *mapping) {
	if k, line := extraKey(rule, "type", "promql"); k != "" {
		c.errorf(file, line, "B13", "unrecognized key %q in 'PromQL' rule", k)
	}
	pn, ok := rule.values["promql"]
	if !ok {
		c.errorf(file, rule.node.Line, "B13", "promql must be set for 'PromQL' rules")
		return
	}
	pm := asMapping(pn)
	if pm == nil {
		c.errorf(file, pn.Line, "B13", "promql must be a mapping with a promql query, not %s", describe(pn))
		return
	}
	if k, line := extraKey(pm, "promql"); k != "" {
		c.errorf(file, line, "B13", "unrecognized key %q in promql property", k)
	}
	q, ok := pm.values["promql"]
	switch {
	case !ok:
		c.errorf(file, pn.Line, "B13", "promql.promql must be set for 'PromQL' rules")
	case !isPyString(q):
		c.errorf(file, q.Line, "B13", "promql.promql value must be a string, not %s", describe(q))
	}
}

// extraKey returns the first key of m not in allowed, and its line.
func extraKey(m *mapping, allowed ...string) (string, int) {
	for _, k := range m.keys {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			return k, m.keyLine[k]
		}
	}
	return "", 0
}
