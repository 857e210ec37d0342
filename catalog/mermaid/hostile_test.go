package mermaid

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/model"
)

// The lines Write emits, as Mermaid's flowchart grammar reads them: an
// id is one token of [A-Za-z0-9._-] (a quote, space, slash, bracket or
// newline would end it or start another statement), a string is
// "…" without a quote or a line break inside (Mermaid has no
// backslash escapes: `\"` ends the string).
const (
	// No "--" or "-." (links) in an id, no leading '-' or '.'.
	idRE  = `[A-Za-z0-9_](?:[A-Za-z0-9_.]|-[A-Za-z0-9_])*`
	strRE = `"[^"\n]*"`
)

var lineForms = []*regexp.Regexp{
	regexp.MustCompile(`^graph LR$`),
	regexp.MustCompile(`^  classDef [a-z]+ [^\n]+$`),
	// Comments: to the end of the line, the name Go-quoted (no line
	// break).
	regexp.MustCompile(`^  %% package "(?:[^"\\\n]|\\.)*"$`),
	regexp.MustCompile(`^    %% channel "(?:[^"\\\n]|\\.)*"$`),
	regexp.MustCompile(`^  subgraph ` + strRE + `$`),
	regexp.MustCompile(`^  subgraph ` + idRE + `\[` + strRE + `\]$`),
	regexp.MustCompile(`^    subgraph ` + idRE + `\[` + strRE + `\]$`),
	regexp.MustCompile(`^      ` + idRE + `\[` + strRE + `\]$`),
	regexp.MustCompile(`^      ` + idRE + `\[` + strRE + `\]-- (?:replace|skip|` + strRE + `) --> ` + idRE + `\[` + strRE + `\]$`),
	regexp.MustCompile(`^    end$`),
	regexp.MustCompile(`^  end$`),
	regexp.MustCompile(`^style ` + idRE + ` fill:#[0-9A-F]{6}$`),
	regexp.MustCompile(`^class ` + idRE + `(?:,` + idRE + `)* [a-z]+$`),
	regexp.MustCompile(`^linkStyle [0-9,]+ [^\n]+$`),
}

// TestHostileNames: package, channel, bundle names and a skipRange with
// quotes, spaces, slashes, brackets, arrows, comment markers and line
// breaks (issue 24 item 6: they were written raw into node ids, so a
// catalog author could add statements) give lines of Mermaid's grammar
// only, one id per name, distinct names distinct ids, and labels that
// read back as the names.
func TestHostileNames(t *testing.T) {
	hostile := []string{
		`a"b`, "a b", "a/b", "a\nclick X call alert(1)\nb", `x]-- replace --> y["z`, "%% c", "p#quot;q", "a_b", "a_5fb",
		"a--b", "a---b", "a-.-b", ".a", "-a", "a-", "end", "op.v1.0.0-rc.1",
	}
	g := &model.ChannelGraph{Package: `pkg "x"/y z`, Channel: "ch\n1 2-", Deprecated: "d"}
	for i, n := range hostile {
		node := model.GraphNode{Name: n, Version: "1.0.0", SkippedByV0: i%2 == 0}
		if i == 0 {
			node.SkipRange, node.SkipRangeFrom = `<2.0.0" --> injected["x`, []model.Span{{1, len(hostile) - 1}}
		}
		g.Nodes = append(g.Nodes, node)
		if i > 0 {
			g.Edges = append(g.Edges, model.GraphEdge{From: n, To: hostile[i-1], Type: model.EdgeReplaces})
		}
	}
	out := render(t, Package{Name: g.Package, Deprecated: "gone", Channels: []*model.ChannelGraph{g}})
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		ok := false
		for _, re := range lineForms {
			ok = ok || re.MatchString(line)
		}
		if !ok {
			t.Errorf("not a line of the flowchart grammar: %q", line)
		}
	}
	// Each name gets one id, distinct names distinct ids, and each
	// node's label reads back as its name.
	nodeLine := regexp.MustCompile(`(?m)^      (` + idRE + `)\[(` + strRE + `)\]$`)
	ids := map[string]string{}
	for _, m := range nodeLine.FindAllStringSubmatch(string(out), -1) {
		name := unescapeText(t, m[2])
		if prev, dup := ids[m[1]]; dup && prev != name {
			t.Errorf("id %s for both %q and %q", m[1], prev, name)
		}
		ids[m[1]] = name
	}
	if len(ids) != len(hostile) {
		t.Errorf("%d node ids for %d names: %v", len(ids), len(hostile), ids)
	}
	for _, n := range hostile {
		found := false
		for _, name := range ids {
			found = found || name == n
		}
		if !found {
			t.Errorf("no node labelled %q", n)
		}
	}
	// The deprecated package is styled by the id its subgraph has.
	// A real name is its own id.
	if !strings.Contains(string(out), "-op.v1.0.0-rc.1[\"op.v1.0.0-rc.1\"]") {
		t.Errorf("op.v1.0.0-rc.1 not its own id:\n%s", out)
	}
	if !strings.Contains(string(out), "  subgraph pkg_20_22x_22_2fy_20z[\"pkg #quot;x#quot;/y z\"]\n") || !strings.Contains(string(out), "style pkg_20_22x_22_2fy_20z fill:") {
		t.Errorf("package subgraph and its style:\n%s", out)
	}
	// Mermaid's keywords where an id begins: a package named "end" or
	// "style" (Mermaid reads "end-style-x" as the end of a subgraph).
	for _, kw := range []string{"end", "style", "graph", "default"} {
		kg := &model.ChannelGraph{Package: kw, Channel: kw, Nodes: []model.GraphNode{{Name: kw}, {Name: "x"}},
			Edges: []model.GraphEdge{{From: "x", To: kw, Type: model.EdgeReplaces}}}
		ko := string(render(t, Package{Name: kw, Deprecated: "d", Channels: []*model.ChannelGraph{kg}}))
		want := "      _" + fmt.Sprintf("%02x", kw[0]) + kw[1:] + "-" + kw + "-x[\"x\"]-- replace --> _" + fmt.Sprintf("%02x", kw[0]) + kw[1:] + "-" + kw + "-" + kw + "[\"" + kw + "\"]\n"
		if !strings.Contains(ko, want) {
			t.Errorf("package %q: want the line %q in\n%s", kw, want, ko)
		}
	}
	if !strings.Contains(string(out), `"skipRange(<2.0.0#quot; --> injected[#quot;x)"`) {
		t.Errorf("skipRange label not escaped:\n%s", out)
	}
}

// unescapeText reads a Mermaid string back: the quotes off, entity
// codes (#quot;, #35;, #N;) decoded.
func unescapeText(t *testing.T, s string) string {
	t.Helper()
	s = strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`)
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '#')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexByte(s, ';')
		if j < 0 {
			t.Fatalf("unterminated entity in %q", s)
		}
		switch ent := s[1:j]; ent {
		case "quot":
			b.WriteByte('"')
		default:
			var n int
			for _, c := range ent {
				if c < '0' || c > '9' {
					t.Fatalf("entity %q", ent)
				}
				n = n*10 + int(c-'0')
			}
			b.WriteRune(rune(n))
		}
		s = s[j+1:]
	}
	return b.String()
}
