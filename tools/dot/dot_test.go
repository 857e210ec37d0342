package dot

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tools/path"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// small has every kind of edge: unconditional, conditional with two risks
// (one message with a quote and a newline), and removals by each key.
const small = `{"version":1,"nodes":[
	{"version":"4.16.2","payload":"p","metadata":{"io.openshift.upgrades.graph.previous.remove_regex":"4[.]15[.].*[+]amd64|4[.]16[.]0[+].*"}},
	{"version":"4.15.1","payload":"p","metadata":{"io.openshift.upgrades.graph.next.remove":"4.16.0+amd64, 4.16.9"}},
	{"version":"4.16.0","payload":"p","metadata":{}},
	{"version":"4.14.9","payload":"p","metadata":{}},
	{"version":"4.16.1","payload":"p","metadata":{"io.openshift.upgrades.graph.previous.remove":"4.15.0"}},
	{"version":"4.15.0","payload":"p","metadata":{}}],
	"edges":[[5,1],[5,2],[1,4],[4,0],[2,4]],
	"conditionalEdges":[{"edges":[{"from":"4.16.0","to":"4.16.2"}],"risks":[
		{"name":"B","message":"say \"hi\"\nagain","url":"https://example.com/B","matchingRules":[{"type":"Always"}]},
		{"name":"A","message":"a","url":"https://example.com/A","matchingRules":[]}]}]}`

func TestBlocked(t *testing.T) {
	g, err := path.Decode("small", []byte(small))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Blocked(g, "amd64")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got {
		lines = append(lines, g.Nodes[e.From].Version+" -> "+g.Nodes[e.To].Version+" "+e.Why)
	}
	want := []string{
		// 4.14.9 matches no pattern; 4.16.0 → 4.16.2 is conditional, 4.15.0 → 4.16.1 absent.
		"4.15.0 -> 4.16.1 previous.remove",
		"4.15.0 -> 4.16.2 previous.remove_regex",
		"4.15.1 -> 4.16.0 next.remove",
		"4.15.1 -> 4.16.2 previous.remove_regex",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("blocked:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	bad, _ := path.Decode("bad", []byte(`{"version":1,"nodes":[{"version":"4.16.0","payload":"p","metadata":{"io.openshift.upgrades.graph.previous.remove_regex":"("}}],"edges":[]}`))
	if _, err := Blocked(bad, "amd64"); err == nil || !strings.Contains(err.Error(), "release 4.16.0") {
		t.Errorf("bad regex: %v", err)
	}
}

func TestWriteGolden(t *testing.T) {
	g, err := path.Decode("small", []byte(small))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		opts  Options
		edges int
	}{
		{"small.dot.golden", Options{Title: "stable-4.16 (amd64)"}, 6},
		{"small-blocked.dot.golden", Options{Title: "stable-4.16 (amd64)", Blocked: true, Arch: "amd64"}, 10},
	} {
		var b bytes.Buffer
		if err := Write(&b, g, tc.opts); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("testdata", tc.name)
		if *update {
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs (go test -update rewrites it); got:\n%s", file, b.Bytes())
		}
		if svg := render(t, b.String()); strings.Count(svg, `class="edge"`) != tc.edges {
			t.Errorf("%s: %d edges in the SVG, want %d", tc.name, strings.Count(svg, `class="edge"`), tc.edges)
		}
	}
}

// render runs Graphviz's dot -Tsvg (Debian package graphviz, installed by
// .ci/deps); outside CI a machine without it skips.
func render(t *testing.T, src string) string {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Graphviz dot is not installed: %v", err)
		}
		t.Skip("Graphviz dot is not installed (apt-get install graphviz)")
	}
	cmd := exec.Command(bin, "-Tsvg")
	cmd.Stdin = strings.NewReader(src)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil || errOut.Len() > 0 {
		t.Fatalf("dot -Tsvg: %v: %s", err, errOut.String())
	}
	return out.String()
}
