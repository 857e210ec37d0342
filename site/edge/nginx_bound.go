package edge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/tree/manifest"
)

// CheckNginxBound reports the first metas file of m (by path) whose query
// values the configuration's encoder chain cannot map: a schema, package
// or name whose encoding changes more than maxChanged bytes. nginx would
// answer such a query with nothing where catalogd answers the blobs, so a
// configuration for that tree is refused rather than printed
// (docs/operators.md); upgraph serve and the CloudFront function map any
// value. A tree without catalogs passes.
func CheckNginxBound(m *manifest.Manifest) error {
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, "operators/")
		if !ok {
			continue
		}
		catalog, rest, ok := strings.Cut(rest, "/metas/")
		if !ok || strings.Contains(catalog, "/") {
			continue
		}
		for _, v := range metasValues(rest) {
			if n := changedBytes(v); n > maxChanged {
				return fmt.Errorf("catalog %s: %s names a value whose encoding changes %d bytes; the nginx configuration maps values of at most %d changed bytes (upper-case letters, '+', bytes outside [0-9a-z.-]), so it would answer that query with nothing: serve this tree with upgraph serve or the CloudFront function", catalog, name, n, maxChanged)
			}
		}
	}
	return nil
}

// metasValues splits the part of a metas file's path after metas/
// ("name/N.jsonl", "schema/S/N.jsonl", "package/P/schema/S/N.jsonl.gz",
// …) into its components, each split encoding (metas.ContinueMark)
// joined again. The keys (name, schema, package) come out as values too:
// they change no byte.
func metasValues(rest string) []string {
	rest = strings.TrimSuffix(rest, ".gz")
	rest = strings.TrimSuffix(rest, ".jsonl")
	var values []string
	var v strings.Builder
	for _, c := range strings.Split(rest, "/") {
		if part, more := strings.CutSuffix(c, metas.ContinueMark); more {
			v.WriteString(part)
			continue
		}
		v.WriteString(c)
		values = append(values, v.String())
		v.Reset()
	}
	return values
}

// changedBytes counts the bytes of a value that its encoding changed:
// each '_' ('+'), "!x" (an upper-case letter) and "~hh" (any other byte)
// stands for one.
func changedBytes(encoded string) int {
	return strings.Count(encoded, "_") + strings.Count(encoded, "!") + strings.Count(encoded, "~")
}
