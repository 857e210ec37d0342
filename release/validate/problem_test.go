package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestValidateOutput(t *testing.T) {
	ps := finish([]Problem{
		{File: "channels/b.yaml", Line: 10, Severity: Warning, Rule: "L-version-order", Message: "late"},
		{File: "channels/b.yaml", Line: 2, Severity: Error, Rule: RuleSchema, Message: "covered"},
		{File: "channels/b.yaml", Line: 2, Severity: Error, Rule: "L-channel-invalid", Message: "bad <version>"},
		{File: "blocked-edges/a.yml", Severity: Error, Rule: "B1", Message: "not .yaml"},
		{File: "channels/b.yaml", Line: 9, Severity: Error, Rule: RuleSchema, Message: "only the schema"},
	})
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"text", func(b *bytes.Buffer) error { return ps.WriteText(b) }, `blocked-edges/a.yml: error: not .yaml [B1]
channels/b.yaml:2: error: bad <version> [L-channel-invalid]
channels/b.yaml:9: error: only the schema [schema]
channels/b.yaml:10: warning: late [L-version-order]
`},
		{"json", func(b *bytes.Buffer) error { return ps.WriteJSON(b) }, `[
  {
    "file": "blocked-edges/a.yml",
    "line": 0,
    "severity": "error",
    "rule": "B1",
    "message": "not .yaml"
  },
  {
    "file": "channels/b.yaml",
    "line": 2,
    "severity": "error",
    "rule": "L-channel-invalid",
    "message": "bad <version>"
  },
  {
    "file": "channels/b.yaml",
    "line": 9,
    "severity": "error",
    "rule": "schema",
    "message": "only the schema"
  },
  {
    "file": "channels/b.yaml",
    "line": 10,
    "severity": "warning",
    "rule": "L-version-order",
    "message": "late"
  }
]
`},
		{"json empty", func(b *bytes.Buffer) error { return Problems(nil).WriteJSON(b) }, "[]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
			if tt.name != "text" && !json.Valid(b.Bytes()) {
				t.Error("not JSON")
			}
		})
	}
	if e, w := ps.Count(Error), ps.Count(Warning); e != 3 || w != 1 {
		t.Errorf("Count: %d errors, %d warnings, want 3, 1", e, w)
	}
}

// TestValidateRulesDocumented: every rule id the checks use is in Rules, the list
// users read (and the sort order), with a description.
func TestValidateRulesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] || r.Description == "" {
			t.Errorf("rule %q duplicated or undescribed", r.ID)
		}
		seen[r.ID] = true
	}
	files, _ := filepath.Glob("*.go")
	used := regexp.MustCompile(`"((?:[BCPRY][0-9]+)|L-[a-z-]+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range used.FindAllStringSubmatch(string(src), -1) {
			if !seen[m[1]] {
				t.Errorf("%s uses rule %s, which is not in Rules", f, m[1])
			}
		}
	}
}
