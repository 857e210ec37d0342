package declcfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// referenceMeta is operator-registry's Meta.UnmarshalJSON written with the
// standard library: json.Unmarshal into a map, keys folded with
// cases.Fold and checked for duplicates, schema/package/name taken as
// strings, and the map re-encoded by a json.Encoder without HTML escaping
// (its trailing newline dropped).
func referenceMeta(data []byte) (blob []byte, schema, pkg, name string, err error) {
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", "", "", err
	}
	byFold := map[string][]string{}
	for k := range m {
		f := folder.String(k)
		byFold[f] = append(byFold[f], k)
	}
	for f, keys := range byFold {
		if len(keys) > 1 {
			return nil, "", "", "", fmt.Errorf("duplicate keys for key %q", f)
		}
	}
	for _, want := range []struct {
		key string
		dst *string
	}{{"schema", &schema}, {"package", &pkg}, {"name", &name}} {
		keys, ok := byFold[want.key]
		if !ok {
			continue
		}
		s, ok := m[keys[0]].(string)
		if !ok {
			return nil, "", "", "", fmt.Errorf("not a string")
		}
		*want.dst = s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, "", "", "", err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), schema, pkg, name, nil
}

// canonSeeds cover the re-encoding rules: key order and duplicates,
// escapes, invalid UTF-8, numbers, nesting, folded keys.
var canonSeeds = []string{
	`{"schema":"a"}`,
	`{"b":1,"a":{"d":[1,{"z":1,"y":2}],"c":null},"schema":"x"}`,
	`{"schema":"x","schema":"y"}`,
	`{"a":1,"b":2,"a":3,"schema":"s"}`,
	`{"Schema":"x","NAME":"n","Package":"p"}`,
	`{"schema":"x","Name":"a","name":"b"}`,
	`{"schema":"x","ß":1,"ss":2}`,
	`{"schema":"x","\u212a":1,"k":2}`,
	`{"schema":5}`,
	`{"schema":null}`,
	`{"schema":"x","k":"\u003c\u0026\u003e \ud83d\ude00 \ud800 \udc00x \ud800\u0041 \u2028 \/ \b\f\n\r\t \u0001 \u007f é"}`,
	"{\"schema\":\"x\",\"k\":\"\xff\xfe\xed\xa0\x80 \u2029 \xe2\x80\xa8\"}",
	`{"schema":"x","n":[0,-0,1.0,1.50,1e21,1e20,1E-7,1e-6,123456789012345,1234567890123456,12345678901234567890,-0.0,5e-324,1e-400,0.1,100e-2]}`,
	`{"schema":"x","n":1e400}`,
	`{"schema":"x","n":-1e400}`,
	`{"schema":"x","\n":1,"\u000a":2,"a\"b":3,"a\\b":4,"":5}`,
	`{"schema":"x","\u00e9":1,"é":2,"e\u0301":3,"z":4,"\u2028":5}`,
	` { "schema" : "x" , "a" : [ ] , "b" : { } } `,
	`{"schema":"x",}`,
	`{"schema":"x" "a":1}`,
	`{"schema":"x","a":[1,]}`,
	`{"schema":"x","a":tru}`,
	`{"schema":"x","a":01}`,
	`{"schema":"x","a":-}`,
	`{"schema":"x","a":1.}`,
	`{"schema":"x","a":1e}`,
	"{\"schema\":\"x\",\"a\":\"\x01\"}",
	`{"schema":"x","a":"\x"}`,
	`{"schema":"x","a":"\u12G4"}`,
	`{"schema":"x"`,
	`{"schema":"x","a":"`,
	`null`,
	`[{"schema":"x"}]`,
	`"x"`,
	`{"schema":"x","d":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}`,
	`{"schema":"x","d":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
}

// FuzzCanonical checks the re-encoder against the reference: the same
// verdict, and for a valid blob the same bytes and meta keys.
func FuzzCanonical(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCanonical(t, data)
	})
}

func TestCanonicalMatchesOperatorRegistry(t *testing.T) {
	for _, s := range canonSeeds {
		checkCanonical(t, []byte(s))
	}
}

func checkCanonical(t *testing.T, data []byte) {
	t.Helper()
	want, schema, pkg, name, werr := referenceMeta(data)
	var c canonicalizer
	mv, end, gerr := c.decodeMeta(data, 0)
	if gerr == nil && skipSpace(data, end) != len(data) {
		// json.Unmarshal refuses trailing data; a stream reads on.
		if werr == nil {
			t.Errorf("%q: reference accepts trailing data", data)
		}
		return
	}
	if gerr == nil && mv.null {
		// The reference decodes null into a nil map (no schema); the loader
		// refuses it as a blob without a schema either way.
		if werr != nil || schema != "" || string(want) != "null" {
			t.Errorf("%q: null, reference %s", data, want)
		}
		return
	}
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%q: error %v, reference %v", data, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !bytes.Equal(mv.canonical, want) || mv.schema != schema || mv.pkg != pkg || mv.name != name {
		t.Fatalf("%q:\n got %s %q %q %q\nwant %s %q %q %q", data, mv.canonical, mv.schema, mv.pkg, mv.name, want, schema, pkg, name)
	}
}

// TestAppendFloat: numbers print as encoding/json prints a float64.
func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.1, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, 5e-324, 1.7976931348623157e308, -2.5e-9, 1e100} {
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); !slices.Equal(got, want) {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}
