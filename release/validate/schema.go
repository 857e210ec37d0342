package validate

import (
	"github.com/upgraph/upgraph/schema"
)

// The schema each file the graph-builder reads is checked against.
const (
	channelSchema     = schema.Channel
	blockedEdgeSchema = schema.BlockedEdge
	rawMetadataSchema = schema.RawMetadata
)

// schemaJSON and schemaYAML report where data breaks the schema of kind.
// parsed says whether the file loaded: if it did not, a YAML/JSON rule has
// already said so, and the schema's own parse error would only repeat it.
func (c *report) schemaJSON(file string, kind schema.Kind, data []byte, parsed bool) {
	ps, err := schema.Validate(kind, data)
	c.schemaProblems(file, ps, err, parsed)
}

func (c *report) schemaYAML(file string, kind schema.Kind, data []byte, parsed bool) {
	ps, err := schema.ValidateYAML(kind, data)
	c.schemaProblems(file, ps, err, parsed)
}

func (c *report) schemaProblems(file string, ps []schema.Problem, err error, parsed bool) {
	if err != nil {
		if parsed {
			c.errorf(file, 1, RuleSchema, "%v", err)
		}
		return
	}
	for _, p := range ps {
		msg := p.Message
		if p.Pointer != "" {
			msg = p.Pointer + ": " + msg
		}
		c.errorf(file, p.Line, RuleSchema, "%s", msg)
	}
}
