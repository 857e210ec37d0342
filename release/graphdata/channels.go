package graphdata

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/tree/version"
)

// channel reads {name, versions}; other keys (feeder, tombstones) are ignored.
func (l *loader) channel(file string, data []byte) {
	fail := func(line int, msg string) {
		l.report(&Problem{File: file, Line: line, Category: Deserialize, Message: "channel: " + msg})
	}
	m, err := parseMapping(data)
	if err != nil {
		fail(yamlLine(err), "invalid YAML: "+err.Error())
		return
	}
	name, line, err := m.str("name")
	if err != nil {
		fail(line, err.Error())
		return
	}
	// Upstream panics sorting channel lists when a name has no '-' (spec
	// §3.9); such a name can never be ordered, so it is always an error.
	if !strings.Contains(name, "-") {
		l.errs = append(l.errs, &Problem{File: file, Line: line, Category: Deserialize,
			Message: fmt.Sprintf("channel name %q has no '-' (channels are named <stream>-<major>.<minor>)", name)})
		return
	}
	vs, ok := m.values["versions"]
	if !ok {
		fail(m.node.Line, `missing "versions"`)
		return
	}
	if vs.Kind != yaml.SequenceNode {
		fail(vs.Line, "versions must be a list, got "+kindName(vs))
		return
	}
	ch := Channel{File: file, Line: line, Name: name}
	for _, item := range vs.Content {
		if item.Kind != yaml.ScalarNode {
			fail(item.Line, "version must be a string, got "+kindName(item))
			return
		}
		v, err := version.Parse(item.Value)
		if err != nil {
			fail(item.Line, err.Error())
			return
		}
		ch.Versions = append(ch.Versions, v)
	}
	l.gd.Channels = append(l.gd.Channels, ch)
}
