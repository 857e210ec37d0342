package mirrorset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/catalog/upgrade"
)

// Install is one installed operator of the list ParseInstalls reads: the
// catalog it comes from (optional when there is one catalog), its
// package, the channel it is subscribed to (optional: the default
// channel when it lists the bundle, else the only channel listing it),
// the installed version (or bundle name) and the target: "head" (the
// default) or a version (or bundle name).
type Install struct {
	Catalog string `json:"catalog,omitempty" yaml:"catalog"`
	Package string `json:"package" yaml:"package"`
	Channel string `json:"channel,omitempty" yaml:"channel"`
	Version string `json:"version" yaml:"version"`
	Target  string `json:"target,omitempty" yaml:"target"`
}

// String names the install in messages.
func (i Install) String() string {
	var b strings.Builder
	if i.Catalog != "" {
		b.WriteString(i.Catalog + "/")
	}
	b.WriteString(i.Package)
	if i.Channel != "" {
		b.WriteString("@" + i.Channel)
	}
	b.WriteString(" " + i.Version + " → ")
	if i.Target == "" {
		b.WriteString(upgrade.Head)
	} else {
		b.WriteString(i.Target)
	}
	return b.String()
}

// InstallKeys are the keys of an entry of the list ParseInstalls reads.
var InstallKeys = []string{"catalog", "package", "channel", "version", "target"}

// ParseInstalls reads the list of installed operators: a YAML sequence
// (or a JSON array, which is YAML) of mappings with the keys catalog,
// package, channel, version and target, all strings (a version written
// as a YAML number keeps its text: 1.10 is "1.10"). package and version
// are required; any other key is an error, with its line, and so is an
// entry listed twice (the same values, keys in any order): the second
// adds nothing, and a list is expected to name each install once. The
// same package with another version or channel is not a duplicate (a
// package installed in two namespaces).
func ParseInstalls(data []byte) ([]Install, error) { return ParseInstallsWith(data, InstallKeys) }

// ParseInstallsWith is ParseInstalls with messages listing keys, the
// subset of InstallKeys the caller takes (plan takes no target: it
// refuses one itself, saying why).
func ParseInstallsWith(data []byte, keys []string) ([]Install, error) {
	want := "want a YAML or JSON list of {" + strings.Join(keys, ", ") + "}"
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no installed operator listed (" + want + ")")
		}
		return nil, fmt.Errorf("%s: %w", want, err)
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document: want one list")
	}
	list := &doc
	if list.Kind == yaml.DocumentNode && len(list.Content) == 1 {
		list = list.Content[0]
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d: %s, not a list: %s", list.Line, nodeKind(list), want)
	}
	if len(list.Content) == 0 {
		return nil, errors.New("no installed operator listed")
	}
	out := make([]Install, 0, len(list.Content))
	seen := map[Install]int{}
	for i, e := range list.Content {
		in, err := parseInstall(e, keys, want)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		switch {
		case in.Package == "":
			return nil, fmt.Errorf("entry %d (line %d): no package", i+1, e.Line)
		case in.Version == "":
			return nil, fmt.Errorf("entry %d (line %d, %s): no version", i+1, e.Line, in.Package)
		}
		if line, ok := seen[in]; ok {
			return nil, fmt.Errorf("entry %d (line %d): the same install as line %d (%s): list it once", i+1, e.Line, line, in)
		}
		seen[in] = e.Line
		out = append(out, in)
	}
	return out, nil
}

// parseInstall reads one entry: a mapping of keys to scalars.
func parseInstall(e *yaml.Node, keys []string, want string) (Install, error) {
	var in Install
	if e.Kind != yaml.MappingNode {
		return in, fmt.Errorf("line %d: %s, not a mapping: %s", e.Line, nodeKind(e), want)
	}
	fields := map[string]*string{"catalog": &in.Catalog, "package": &in.Package, "channel": &in.Channel, "version": &in.Version, "target": &in.Target}
	given := map[string]int{}
	for j := 0; j+1 < len(e.Content); j += 2 {
		k, v := e.Content[j], e.Content[j+1]
		f, ok := fields[k.Value]
		if !ok || k.Kind != yaml.ScalarNode {
			return in, fmt.Errorf("line %d: unknown key %q (the keys are %s)", k.Line, k.Value, strings.Join(keys, ", "))
		}
		if line, ok := given[k.Value]; ok {
			return in, fmt.Errorf("line %d: %s given again (first on line %d)", k.Line, k.Value, line)
		}
		given[k.Value] = k.Line
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		case v.Kind == yaml.ScalarNode:
			*f = v.Value
		default:
			return in, fmt.Errorf("line %d: %s is %s, want a string", v.Line, k.Value, nodeKind(v))
		}
	}
	return in, nil
}

// nodeKind names what a YAML node holds, in messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "nothing"
}

// ReadInstalls reads the installed operators file of --installed
// (ParseInstalls), its errors naming the flag and the file; nothing when
// the flag is not given.
func ReadInstalls(file string, given bool) ([]Install, error) {
	if !given {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--installed: %w", err)
	}
	installs, err := ParseInstalls(data)
	if err != nil {
		return nil, fmt.Errorf("--installed %s: %w", file, err)
	}
	return installs, nil
}
