package declcfg

import (
	"bytes"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

var yamlSeeds = []string{
	"schema: a\n",
	"schema: olm.package\nname: p\ndefaultChannel: c\nicon:\n  base64data: aGk=\n  mediatype: image/svg+xml\n",
	"schema: x\nx: yes\non: 1\ny: 0x1F\nz: 2001-12-14\nw: ~\nv: 1.0\nn: 012\nq: 0o17\nb: 0b101\nneg: -0\n",
	"schema: x\nbig: 12345678901234567890\nbigger: 123456789012345678901234\nneg: -9223372036854775808\nf: 6.02e23\ng: .5\nh: 1_000\n",
	"schema: x\nf: .inf\n", "schema: x\nf: .nan\n", "schema: x\nf: -.Inf\n",
	"schema: x\ns: \"<&> \\u2028 \\x01 \\xff \\t\"\nt: |\n  multi\n  line\n",
	"schema: x\nschema: y\n", "Schema: x\nNAME: n\nname: m\n", "schema: x\nb: 1\na: 2\nb: 3\n",
	"schema: x\n1.5: f\n2: i\ntrue: b\n1e3: e\n.inf: x\n", "schema: x\n1: a\n\"2\": b\n",
	"schema: x\n? [complex]\n: v\n", "schema: x\n~: nullkey\n", "schema: x\n18446744073709551615: big\n",
	"schema: x\na: &anc {b: 1, c: [1, 2]}\nd: *anc\n", "schema: x\nbase: &b {k: 1}\nm:\n  <<: *b\n  j: 2\n",
	"schema: x\nk: !!binary aGVsbG8=\n", "schema: x\nk: !!binary /w==\n", "schema: x\nk: !!str 1\nt: !!timestamp 2001-12-14\n",
	"schema: x\nk: \"\\ud800\"\n", "schema: x\nk: 'it''s'\n", "schema: x\nlist:\n- {a: 1}\n- [1, 2]\n- - nested\n",
	"{}\n", "- a\n", "scalar\n", "# comment\n", "", "schema: [unclosed\n", "schema: x\n  bad: indent\n",
	"schema: x\nempty:\nmap: {}\nseq: []\n", "schema: x\n\"\": empty key\n", "schema: x\nk: \"\\0\\a\\e\"\n",
	"schema: olm.bundle\nproperties:\n- type: olm.bundle.object\n  value:\n    data: eyJhIjoxfQ==\n",
}

// FuzzYAMLDirect checks the direct YAML conversion against the exact one
// (sigs.k8s.io/yaml.YAMLToJSON, then decodeMeta): whenever the direct
// path answers, the exact path succeeds with the same blob and keys.
func FuzzYAMLDirect(f *testing.F) {
	for _, s := range yamlSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkYAMLDirect(t, doc)
	})
}

func TestYAMLDirectMatchesYAMLToJSON(t *testing.T) {
	direct := 0
	for _, s := range yamlSeeds {
		if checkYAMLDirect(t, []byte(s)) {
			direct++
		}
	}
	if direct < len(yamlSeeds)/2 {
		t.Errorf("only %d of %d seeds took the direct path", direct, len(yamlSeeds))
	}
}

func checkYAMLDirect(t *testing.T, doc []byte) bool {
	t.Helper()
	d := &fileDecoder{c: &canonicalizer{}}
	mv, ok := d.yamlDirect(doc)
	if !ok {
		return false
	}
	got := bytes.Clone(mv.canonical)
	if keysCollide(doc) {
		return true // sigs.k8s.io/yaml picks one of the colliding keys at random
	}
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("%q: direct path gave %s, YAMLToJSON failed: %v", doc, got, err)
	}
	var c canonicalizer
	want, _, jerr := c.decodeMeta(j, 0)
	if jerr != nil || want.null {
		t.Fatalf("%q: direct path gave %s, exact path %s: %v", doc, got, j, jerr)
	}
	if !bytes.Equal(got, want.canonical) || mv.schema != want.schema || mv.pkg != want.pkg || mv.name != want.name {
		t.Fatalf("%q:\n direct %s %q %q %q\n  exact %s %q %q %q", doc, got, mv.schema, mv.pkg, mv.name, want.canonical, want.schema, want.pkg, want.name)
	}
	return true
}

// keysCollide reports whether some mapping of doc has two distinct keys
// that convert to the same string (1 and "1").
func keysCollide(doc []byte) bool {
	var v any
	if err := yamlUnmarshalSlice(doc, &v); err != nil {
		return false
	}
	return collides(v)
}

func yamlUnmarshalSlice(doc []byte, v *any) error {
	var ms yamlv2.MapSlice
	err := yamlv2.Unmarshal(doc, &ms)
	*v = ms
	return err
}

func collides(v any) bool {
	switch v := v.(type) {
	case yamlv2.MapSlice:
		seen := map[string]any{}
		for _, item := range v {
			k, _ := yamlKey(item.Key)
			if prev, ok := seen[k]; ok && prev != item.Key {
				return true
			}
			seen[k] = item.Key
			if collides(item.Value) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if collides(e) {
				return true
			}
		}
	}
	return false
}
