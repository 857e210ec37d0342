package mirrorset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// ParseInstalls reads the list of installed operators: a YAML sequence
// (or a JSON array, which is YAML) of mappings with the keys catalog,
// package, channel, version and target, all strings (a version written
// as a YAML number keeps its text: 1.10 is "1.10"). package and version
// are required; any other key is an error, with its line.
func ParseInstalls(data []byte) ([]Install, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var out []Install
	if err := dec.Decode(&out); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no installed operator listed (want a YAML or JSON list of {catalog, package, channel, version, target})")
		}
		return nil, fmt.Errorf("want a YAML or JSON list of {catalog, package, channel, version, target}: %w", err)
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document: want one list")
	}
	if len(out) == 0 {
		return nil, errors.New("no installed operator listed")
	}
	for i, in := range out {
		switch {
		case in.Package == "":
			return nil, fmt.Errorf("entry %d: no package", i+1)
		case in.Version == "":
			return nil, fmt.Errorf("entry %d (%s): no version", i+1, in.Package)
		}
	}
	return out, nil
}
