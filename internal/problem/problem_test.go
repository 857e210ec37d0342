package problem

import (
	"bytes"
	"testing"
)

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{File: "channels/a.yaml", Line: 3, Severity: Error, Rule: "C1", Message: "m"}, "channels/a.yaml:3: error: m [C1]"},
		{Problem{File: "raw/metadata.json", Severity: Warning, Rule: "B1", Message: "m"}, "raw/metadata.json: warning: m [B1]"},
		{Problem{Line: 7, Severity: Error, Rule: "F1", Message: "m"}, "-:7: error: m [F1]"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	var b bytes.Buffer
	if err := Problems(nil).WriteJSON(&b); err != nil || b.String() != "[]\n" {
		t.Errorf("WriteJSON(nil) = %q, %v; want []", b.String(), err)
	}
	b.Reset()
	ps := Problems{{File: "f", Severity: Error, Rule: "R", Message: "a<b&c", Package: "p"}, {File: "g", Severity: Warning, Rule: "R", Message: "x"}}
	if err := ps.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\n    \"file\": \"f\",\n    \"line\": 0,\n    \"severity\": \"error\",\n    \"rule\": \"R\",\n    \"message\": \"a<b&c\",\n    \"package\": \"p\"\n  },\n  {\n    \"file\": \"g\",\n    \"line\": 0,\n    \"severity\": \"warning\",\n    \"rule\": \"R\",\n    \"message\": \"x\"\n  }\n]\n"; b.String() != want {
		t.Errorf("WriteJSON =\n%s\nwant\n%s", b.String(), want)
	}
	if ps.Count(Error) != 1 || ps.Count(Warning) != 1 || ps.CountByRule()["R"] != 2 {
		t.Errorf("counts: %d errors, %d warnings, %v", ps.Count(Error), ps.Count(Warning), ps.CountByRule())
	}
}
