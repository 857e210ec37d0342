// Package catalogset reads a catalog set file: the operator catalogs a
// cluster has, as OLM resolves over them, each with its name (the
// CatalogSource or ClusterCatalog name a Subscription's spec.source
// names), its source and its priority (spec.priority: OLM v1 prefers the
// highest across catalogs). For `upgraph plan`, a catalog may give one
// source per cluster minor instead of one source (OpenShift ships an
// index image per minor).
//
//	catalogs:
//	- name: redhat-operators
//	  priority: -100
//	  minors:
//	    v4.21: registry.redhat.io/redhat/redhat-operator-index:v4.21
//	    v4.22: registry.redhat.io/redhat/redhat-operator-index:v4.22
//	- name: community-operators
//	  source: dir:/srv/catalogs/community/configs
//
// The format is schema/cli/catalog-set.schema.json; Parse checks the
// same rules and names the line of what it refuses. A source is a
// string as given: a comma or '=' in it is part of it.
package catalogset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"

	"gopkg.in/yaml.v3"
)

// Set is a catalog set: its catalogs in the file's order.
type Set struct {
	Catalogs []Catalog `json:"catalogs" yaml:"catalogs"`
}

// Catalog is one catalog of a set.
type Catalog struct {
	// Name is the catalog's name: a DNS-1123 label.
	Name string `json:"name" yaml:"name"`
	// Source is where it is read from (a catalog source, or the name of
	// a catalog of the tree the command reads); "" when Minors gives one
	// per minor.
	Source string `json:"source,omitempty" yaml:"source"`
	// Priority is spec.priority (int32, 0 by default).
	Priority int32 `json:"priority,omitempty" yaml:"priority"`
	// Minors are, for plan, the source at each cluster minor ("vX.Y" →
	// source).
	Minors map[string]string `json:"minors,omitempty" yaml:"minors"`
	// Line is where the catalog starts in the file (0 when not read from
	// one).
	Line int `json:"-" yaml:"-"`
}

var (
	namePattern  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	minorPattern = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
)

// Parse reads a catalog set from YAML or JSON (one document, unknown keys
// refused). Every catalog needs a name (a DNS-1123 label, unique) and a
// source or minors (not both); minors keys are vX.Y.
func Parse(data []byte) (*Set, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Set
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty: want a mapping with catalogs, a list of {name, source, priority, minors}")
		}
		return nil, fmt.Errorf("want a mapping with catalogs, a list of {name, source, priority, minors}: %w", err)
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document: want one catalog set")
	}
	// Lines of the catalogs, for messages.
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) == 1 {
		root := doc.Content[0]
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "catalogs" {
				for j, item := range root.Content[i+1].Content {
					if j < len(s.Catalogs) {
						s.Catalogs[j].Line = item.Line
					}
				}
			}
		}
	}
	if len(s.Catalogs) == 0 {
		return nil, errors.New("no catalog listed (want catalogs: a list of {name, source, priority, minors})")
	}
	seen := map[string]int{}
	for i, c := range s.Catalogs {
		at := fmt.Sprintf("line %d: catalog %d", c.Line, i+1)
		if c.Name != "" {
			at += " (" + c.Name + ")"
		}
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("%s: no name", at)
		case len(c.Name) > 63 || !namePattern.MatchString(c.Name):
			return nil, fmt.Errorf("%s: name %q: want a DNS-1123 label (at most 63 characters of a-z, 0-9 and '-', starting and ending with a letter or digit)", at, c.Name)
		case seen[c.Name] != 0:
			return nil, fmt.Errorf("%s: name %q already given at line %d", at, c.Name, seen[c.Name])
		case c.Source == "" && len(c.Minors) == 0:
			return nil, fmt.Errorf("%s: no source (give source, or minors for plan)", at)
		case c.Source != "" && len(c.Minors) > 0:
			return nil, fmt.Errorf("%s: both source and minors: give one", at)
		}
		seen[c.Name] = max(c.Line, 1)
		for _, k := range sortedKeys(c.Minors) {
			if !minorPattern.MatchString(k) {
				return nil, fmt.Errorf("%s: minors key %q: want vX.Y, e.g. v4.21", at, k)
			}
			if c.Minors[k] == "" {
				return nil, fmt.Errorf("%s: minors %s: no source", at, k)
			}
		}
	}
	return &s, nil
}

// Catalog returns the catalog named name, nil when there is none.
func (s *Set) Catalog(name string) *Catalog {
	i := slices.IndexFunc(s.Catalogs, func(c Catalog) bool { return c.Name == name })
	if i < 0 {
		return nil
	}
	return &s.Catalogs[i]
}

// Names lists the catalogs' names in the file's order.
func (s *Set) Names() []string {
	out := make([]string, len(s.Catalogs))
	for i, c := range s.Catalogs {
		out[i] = c.Name
	}
	return out
}

// SourceAt is the catalog's source at the cluster minor key ("vX.Y"):
// Source when it has one, else Minors[key] ("" when it has none there).
func (c *Catalog) SourceAt(key string) string {
	if c.Source != "" {
		return c.Source
	}
	return c.Minors[key]
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
