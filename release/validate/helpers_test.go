package validate

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/tree/version"
)

// channel410 is a channel file body: versions start on line 3.
func channelYAML(name string, versions ...string) string {
	return "name: " + name + "\nversions:\n- " + strings.Join(versions, "\n- ") + "\n"
}

// baseTree is the smallest tree that validates clean: three channels
// satisfying C1 and an empty blocked-edges/.
func baseTree() map[string]string {
	vs := []string{"4.15.0", "4.16.0", "4.16.1"}
	return map[string]string{
		"version":                      "1.1.0\n",
		"raw/metadata.json":            "{}\n",
		"channels/candidate-4.16.yaml": channelYAML("candidate-4.16", vs...),
		"channels/fast-4.16.yaml":      channelYAML("fast-4.16", vs...),
		"channels/stable-4.16.yaml":    channelYAML("stable-4.16", vs...),
	}
}

// riskYAML is a valid conditional risk; keys are on lines to 1, from 2,
// url 3, name 4, message 5, matchingRules 6 (rule on 7).
const riskYAML = `to: 4.16.1
from: 4[.]16[.]0[+].*
url: https://issues.example.com/1
name: ExampleRisk
message: Something breaks.
matchingRules:
- type: Always
`

// blockYAML is a valid unconditional block (to on line 1, from on 2).
const blockYAML = "to: 4.16.1\nfrom: 4[.]15[.]0[+].*\n"

// tree is baseTree with files added, replaced or (for the value "-")
// removed. A path ending in "/" is an (empty) directory.
func tree(files map[string]string) fstest.MapFS {
	all := baseTree()
	for k, v := range files {
		all[k] = v
	}
	fsys := fstest.MapFS{"blocked-edges": {Mode: fs.ModeDir | 0o755}}
	for k, v := range all {
		switch {
		case v == "-":
			delete(fsys, k)
		case strings.HasSuffix(k, "/"):
			fsys[strings.TrimSuffix(k, "/")] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
		default:
			fsys[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
		}
	}
	return fsys
}

func versions(t *testing.T, vs ...string) []version.Version {
	t.Helper()
	out := []version.Version{}
	for _, v := range vs {
		out = append(out, version.MustParse(v))
	}
	return out
}

// brief is how tests name a problem: where, how bad, which rule.
func brief(p Problem) string {
	return fmt.Sprintf("%s:%d %s %s", p.File, p.Line, p.Severity, p.Rule)
}
