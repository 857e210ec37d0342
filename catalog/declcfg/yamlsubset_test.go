package declcfg

import (
	"bytes"
	"io/fs"
	"os"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
)

// subsetSeeds are odd YAML for FuzzSubsetYAML and
// TestSubsetYAMLMatchesYAMLv2: what the subset reads and what it must
// leave to yaml/v2.
var subsetSeeds = []string{
	"schema: a\n",
	"---\nschema: a\nname: b\n", "--- # c\nschema: a\n", "---x\nschema: a\n",
	"schema: olm.package\nname: p\ndefaultChannel: c\nicon:\n  base64data: aGk=\n  mediatype: image/svg+xml\n",
	"entries:\n- name: a\n  replaces: b\n  skips:\n  - c\n  - d\n- name: e\nname: ch\nschema: olm.channel\n",
	"a:\n  - x\n  -\n  - y\nb:\n-\n- - z\n", "a:\n-   k: 1\n    l: 2\n-\n  m: 3\n",
	"a: [1]\n", "a: []\nb: {}\nc: {} # c\nd: [ ]\n", "a: {x: 1}\n",
	"a: &x 1\nb: *x\n", "a: !!str 1\n", "a: !t x\n",
	"a: b: c\n", "a: b:\n", "a: x #c\nb: y#z\nc: 'q' # c\nd: \"q\"#c\n",
	"a: |\n  l1\n\n  l2\n\n\nb: 1\n", "a: |-\n  x\n   y\n\n", "a: |+\n  x\n\n\nb: c\n", "a: |+\n\n\n",
	"a: |\nb: c\n", "a: |2\n    x\n   y\n", "- |\n x\n", "a:\n- |1\n  x\n", "a: |\n  \n    x\n  y\n",
	"a: |\n    \n  x\n", "a: | # c\n  x\n# c\n  y\n", "a: >\n  x\n  y\n", "a: |0\n x\n", "a: |-1\n  x\n",
	"a: |\n  ---\n  x\n", "a: |\n  x\n---\nb: 1\n", "a: x\n...\n", "%YAML 1.1\n---\na: b\n",
	"a: \"\\x41\\u00e9\\U0001F600\\t\\/\\N\\_\\L\\P\\0\\e \\\" \\\\ \\'\"\n", "a: \"\\ud800\"\n", "a: \"x\n  y\"\n",
	"a: 'it''s'\n", "a: 'x\n  y'\n", "a: ''\nb: \"\"\n", "a: 'x' y\n", "a: \"x\"\"y\"\n",
	"a: x\n  y\n", "a: x\n\n  y\n", "a: x\n  # c\nb: y\n", "a: x\n# c\nb: y\n", "a:\n  # c\n  b: y\n",
	"a: yes\nb: No\nc: on\nd: ~\ne: null\nf: 0x1F\ng: 012\nh: 0o17\ni: 0b101\nj: -0b11\nk: 1_000\nl: +5\nm: -0\n",
	"a: 1.5\nb: .5\nc: 1e3\nd: 6.02e23\ne: 1.\nf: -.inf\ng: .nan\nh: .NaN\ni: 1e400\nj: 0x1p-2\nk: 12345678901234567890\nl: 123456789012345678901234\n",
	"a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: 2001-12-14 21:59:43.10\nd: 2001-13-14\ne: 1.0.0\nf: -\n",
	"1: a\n\"2\": b\ntrue: c\n1.5: d\n~: e\n.inf: f\n.nan: g\n18446744073709551615: h\n-9223372036854775809: i\n",
	"a: 1\na: 2\n", "? a\n: b\n", "a:\n  b: 1\n c: 2\n", "a:\n  b: 1\n   c: 2\n", "  a: 1\n", "- a\n", "x\n", "",
	"a: b\r\nc: d\r\n", "a:\tb\n", "\ta: b\n", "a: b\tc\n", "a: \x01\n", "a: \xff\n", "a: \u2028\n", "\ufeffa: b\n",
	"a: -x\nb: ?x\nc: :x\nd: x:y\ne: ::\n", "a: @x\n", "a: `x\n", "a: %x\n", "a: ,x\n", "a: x,y]\n", "-a: 1\n",
	"a  : 1\n", "a :b\n", "a:b\n", "a: 1 # : x\n", "<<: {a: 1}\n", "a: <<\n", "a:\n  <<: *b\n",
	"schema: x\nk: \"\\0\\a\\e\"\n", "schema: x\nbig: 18446744073709551616\nsmall: -9223372036854775808\n",
}

// FuzzSubsetYAML checks the subset reader against yaml/v2: whenever the
// subset answers, yaml/v2 decodes the document and appendYAML writes the
// same JSON; when yaml/v2 fails, the subset must not answer.
func FuzzSubsetYAML(f *testing.F) {
	for _, s := range subsetSeeds {
		f.Add([]byte(s))
	}
	for _, doc := range catalogDocs(f, 25) {
		f.Add(shortDoc(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkSubsetYAML(t, doc)
	})
}

func TestSubsetYAMLMatchesYAMLv2(t *testing.T) {
	read := 0
	for _, s := range subsetSeeds {
		if checkSubsetYAML(t, []byte(s)) {
			read++
		}
	}
	if read < len(subsetSeeds)/3 {
		t.Errorf("the subset read only %d of %d seeds", read, len(subsetSeeds))
	}
}

// TestSubsetYAMLSharedCatalog compares the subset reader with yaml/v2 on
// every document of the shared catalog, and requires it to read all but
// a few of them.
func TestSubsetYAMLSharedCatalog(t *testing.T) {
	docs := catalogDocs(t, 0)
	read := 0
	for _, doc := range docs {
		if checkSubsetYAML(t, doc) {
			read++
		}
	}
	t.Logf("the subset read %d of %d documents", read, len(docs))
	if len(docs) < 800 || read < len(docs)-10 {
		t.Errorf("the subset read %d of %d documents", read, len(docs))
	}
}

// checkSubsetYAML compares appendSubsetYAML with yaml/v2 on doc and
// reports whether the subset read it.
func checkSubsetYAML(t *testing.T, doc []byte) bool {
	t.Helper()
	got, ok := appendSubsetYAML(nil, doc)
	var ms yamlv2.MapSlice
	err := yamlv2.Unmarshal(doc, &ms)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%q: the subset gave %s, yaml/v2 failed: %v", doc, got, err)
	}
	want, wok := appendYAML(nil, ms, 0)
	if !wok || len(ms) == 0 {
		t.Fatalf("%q: the subset gave %s, yaml/v2 decoded %#v, which appendYAML does not write", doc, got, ms)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\nsubset  %s\nyaml/v2 %s", doc, got, want)
	}
	return true
}

// shortDoc keeps the start of a document, its lines cut short, as a seed
// small enough for the fuzzer to mutate quickly: the first 40 lines, each
// at most 100 bytes.
func shortDoc(doc []byte) []byte {
	var out []byte
	for i, line := range bytes.SplitAfter(doc, []byte("\n")) {
		if i == 40 {
			break
		}
		if len(line) > 100 {
			line = append(line[:99:99], '\n')
		}
		out = append(out, line...)
	}
	return out
}

// catalogDocs returns the YAML documents of the shared catalog as the
// stream reader splits them (every max-th one if max > 0).
func catalogDocs(tb testing.TB, every int) [][]byte {
	tb.Helper()
	fsys := os.DirFS(sharedCatalog)
	files, err := catalogFiles(fsys, MaxFileBytes)
	if err != nil {
		tb.Fatal(err)
	}
	var docs [][]byte
	n := 0
	for _, f := range files {
		name := f.name
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			tb.Fatal(err)
		}
		r := yamlReader{data: data}
		for {
			doc, _, rerr := r.next()
			if rerr == errEOF {
				break
			}
			if rerr != nil {
				tb.Fatalf("%s: %s", name, rerr.msg)
			}
			if n++; every == 0 || n%every == 0 {
				docs = append(docs, bytes.Clone(doc))
			}
		}
	}
	return docs
}

func TestSubsetChars(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"abcdefgh\nabcdefgh\n\n\n\n\n\n\n\n", true},
		{"abcdefg\x0bh", false}, {"abcdefgh\x09", false}, {"abc\rdefgh", false}, {"abcdefgh~\x7f", false},
		{"\x00abcdefgh", false}, {"abcdefghé\n12345678", true}, {"abcdefgh\u0085", false}, {"abcdefgh\u2028", false},
		{"abcdefgh\ufeff", false}, {"abcdefgh\xff", false}, {"abcdefgh\U0001F600", true}, {"abcdefgh\uffff", false},
		{"12345678\x1f", false}, {"1234567\n\x1f", false}, {"\n\n\n\n\n\n\n\x0a", true}, {"\n\n\n\n\n\n\n\x0b", false},
	} {
		if got := subsetChars([]byte(tc.in)); got != tc.want {
			t.Errorf("subsetChars(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
