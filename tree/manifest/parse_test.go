package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestParseMatchesEncodingJSON checks that Parse, whose file table takes a
// fast path in the form Encode writes, gives what encoding/json gives for
// the whole document, or fails as it does, for index.json as upgraph
// writes it and for documents just off that form.
func TestParseMatchesEncodingJSON(t *testing.T) {
	encoded := func(files map[string]File) string {
		m := sample()
		m.Files = files
		b, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	written := encoded(map[string]File{
		"graph/amd64/stable-4.16.json":   {SHA256: SHA256([]byte("x")), Size: 1 << 40},
		"graph/amd64/stable-4.16/a.json": {SHA256: "ab", Size: 0},
		"files":                          {SHA256: "cd", Size: 12},
		`odd "quoted" \ name`:            {Size: 3},
		"<html> & ünïcode\u2028\x01\x7f": {SHA256: "<>", Size: 7},
	})
	var fast Manifest
	plain := encoded(map[string]File{"graph/amd64/stable-4.16.json": {SHA256: SHA256(nil), Size: 12}, "index.html": {SHA256: "00"}})
	if !parseFast([]byte(plain), &fast) {
		t.Error("index.json as Encode writes it did not take the fast path")
	}
	// Names that need escaping take the slow path.
	if parseFast([]byte(written), &fast) {
		t.Error("a table with escaped names took the fast path")
	}
	head := `{"format":1,"generator":"upgraph","counts":{"files":3}`
	for _, tc := range []struct{ name, doc string }{
		{"as written", written},
		{"one file", encoded(map[string]File{"a": {SHA256: "00", Size: 1}})},
		{"no file", encoded(map[string]File{})},
		{"files only", `{"files":{"a":{"sha256":"0","size":1}},"format":1}`},
		{"files alone", `{"files":{"a":{"sha256":"0","size":1}}}`},
		{"spaces", head + ` , "files" : {"a":{"sha256":"0","size":1}} }` + "\n"},
		{"spaced table", head + `,"files":{"a": {"sha256":"0","size":1}}}`},
		{"not last", `{"files":{"a":{"sha256":"0","size":1}},"format":1,"generator":"x"}`},
		{"twice", head + `,"files":{"a":{"sha256":"0","size":1}},"files":{"b":{"sha256":"1","size":2}}}`},
		{"other case", head + `,"Files":{"b":{"sha256":"1","size":2}},"files":{"a":{"sha256":"0","size":1}}}`},
		{"null", head + `,"files":null}`},
		{"escaped name", head + `,"files":{"a\u0041":{"sha256":"0","size":1}}}`},
		{"leading zero", head + `,"files":{"a":{"sha256":"0","size":01}}}`},
		{"negative", head + `,"files":{"a":{"sha256":"0","size":-1}}}`},
		{"huge", head + `,"files":{"a":{"sha256":"0","size":12345678901234567890}}}`},
		{"18 digits", head + `,"files":{"a":{"sha256":"0","size":123456789012345678}}}`},
		{"other member", head + `,"files":{"a":{"sha256":"0","size":1,"x":2}}}`},
		{"trailing comma", head + `,"files":{"a":{"sha256":"0","size":1},}}`},
		{"double comma", head + `,,"files":{"a":{"sha256":"0","size":1}}}`},
		{"garbage after", head + `,"files":{"a":{"sha256":"0","size":1}}} x`},
		{"unclosed", head + `,"files":{"a":{"sha256":"0","size":1}}`},
		{"string with key", `{"generator":"\",\"files\":{","files":{"a":{"sha256":"0","size":1}},"format":1}`},
		{"not an object", `["files"]`},
		{"empty", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want Manifest
			wantErr := json.Unmarshal([]byte(tc.doc), &want)
			got, err := Parse([]byte(tc.doc))
			switch {
			case wantErr != nil:
				if err == nil || !strings.Contains(err.Error(), wantErr.Error()) {
					t.Errorf("Parse error %v, encoding/json's %v", err, wantErr)
				}
			case want.Format != Format || want.Files == nil:
				if err == nil {
					t.Errorf("Parse accepted a format %d manifest with files %v", want.Format, want.Files)
				}
			case err != nil:
				t.Errorf("Parse: %v", err)
			case !reflect.DeepEqual(*got, want):
				t.Errorf("Parse = %+v\nencoding/json %+v", *got, want)
			}
		})
	}
}
