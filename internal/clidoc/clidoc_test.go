package clidoc

import (
	"strings"
	"testing"
)

// TestMarkdownEscaping: description text that Markdown would read as
// markup comes out as text.
func TestMarkdownEscaping(t *testing.T) {
	for in, want := range map[string]string{
		"sha256=<hex>/signature-<N>": "sha256=&lt;hex&gt;/signature-&lt;N&gt;",
		"remove_regex and *":         `remove\_regex and \*`,
		"a | b":                      `a \| b`,
		"- not a list":               `\- not a list`,
		"1. not a list":              `\1. not a list`,
		"--flag stays":               "--flag stays",
		"# not a heading":            `\# not a heading`,
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
	bl := blocks("text\n  code\n    more\ntext again\n\nnext")
	if len(bl) != 4 || !bl[1].code || strings.Join(bl[1].lines, "|") != "code|  more" || bl[2].lines[0] != "text again" {
		t.Errorf("blocks: %+v", bl)
	}
}
