package catalogset

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"gopkg.in/yaml.v3"
)

const schemaFile = "../../schema/cli/catalog-set.schema.json"

// TestParse: what a catalog set file may say, and that the JSON Schema
// agrees with Parse (name uniqueness aside, which a schema cannot say).
func TestParse(t *testing.T) {
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	const id = "https://upgraph.dev/schema/cli/catalog-set.schema.json"
	if err := c.AddResource(id, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, in string
		err      string // "" valid
		schemaOK bool   // the schema's verdict when it differs from Parse's
	}{
		{"two catalogs with priorities", "catalogs:\n- name: a\n  source: dir:/x,y=z\n  priority: -100\n- name: b\n  source: registry.example.com/idx:v4.21\n", "", true},
		{"JSON", `{"catalogs":[{"name":"a","source":"dir:x","priority":5}]}`, "", true},
		{"minors for plan", "catalogs:\n- name: redhat\n  minors:\n    v4.21: idx:v4.21\n    v4.22: idx:v4.22\n", "", true},
		{"empty", "", "empty", false},
		{"no catalog", "catalogs: []\n", "no catalog listed", false},
		{"unknown key", "catalogs:\n- name: a\n  source: x\n  prio: 1\n", "field prio not found", false},
		{"no name", "catalogs:\n- source: x\n", "line 2: catalog 1: no name", false},
		{"bad name", "catalogs:\n- name: A_b\n  source: x\n", `name "A_b": want a DNS-1123 label`, false},
		{"duplicate name", "catalogs:\n- name: a\n  source: x\n- name: a\n  source: y\n", `line 4: catalog 2 (a): name "a" already given at line 2`, true},
		{"no source", "catalogs:\n- name: a\n  priority: 1\n", "no source", false},
		{"source and minors", "catalogs:\n- name: a\n  source: x\n  minors: {v4.21: y}\n", "both source and minors", false},
		{"bad minor", "catalogs:\n- name: a\n  minors: {\"4.21\": y}\n", `minors key "4.21": want vX.Y`, false},
		{"priority out of int32", "catalogs:\n- name: a\n  source: x\n  priority: 2147483648\n", "cannot unmarshal", false},
		{"two documents", "catalogs:\n- name: a\n  source: x\n---\ncatalogs: []\n", "more than one YAML document", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(tc.in))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if tc.err == "" && (len(s.Catalogs) == 0 || s.Catalogs[0].Line == 0) {
				t.Errorf("parsed %+v", s)
			}
			var doc any
			if yaml.Unmarshal([]byte(tc.in), &doc) != nil || doc == nil {
				return
			}
			js, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			dec := json.NewDecoder(bytes.NewReader(js))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if ok := sch.Validate(v) == nil; ok != tc.schemaOK {
				t.Errorf("schema says valid=%v, want %v", ok, tc.schemaOK)
			}
		})
	}
	s, _ := Parse([]byte("catalogs:\n- name: a\n  source: dir:/x,y=z\n  priority: -100\n- name: b\n  minors: {v4.21: q}\n"))
	if c := s.Catalog("a"); c == nil || c.Source != "dir:/x,y=z" || c.Priority != -100 || c.SourceAt("v4.22") != "dir:/x,y=z" {
		t.Errorf("catalog a: %+v", c)
	}
	if c := s.Catalog("b"); c == nil || c.SourceAt("v4.21") != "q" || c.SourceAt("v4.22") != "" {
		t.Errorf("catalog b: %+v", c)
	}
}
