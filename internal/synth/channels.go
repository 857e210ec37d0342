package synth

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"gopkg.in/yaml.v3"
)

// channelsDir is the graph-data directory holding one YAML file per channel.
const channelsDir = "channels"

// channelFile is the part of a graph-data channel file synth cares about.
// Other keys (feeder, tombstones, ...) are ignored.
type channelFile struct {
	Name     string      `yaml:"name"`
	Versions []yaml.Node `yaml:"versions"`
}

// Versions returns the sorted (by SemVer precedence) distinct versions the
// channels of the graph-data tree in fsys name, without build metadata.
func Versions(fsys fs.FS) ([]string, error) {
	vs, err := channelVersions(fsys)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.str
	}
	return out, nil
}

// version is a parsed version without build metadata and its canonical
// string, which is computed once as semver's String is not cheap.
type version struct {
	*semver.Version
	str string
}

// channelVersions reads every channel file under channels/ and returns the
// distinct versions they name, build metadata stripped, sorted by precedence.
func channelVersions(fsys fs.FS) ([]version, error) {
	entries, err := fs.ReadDir(fsys, channelsDir)
	if err != nil {
		return nil, fmt.Errorf("reading graph-data channels: %w", err)
	}
	seen := make(map[string]version)
	for _, e := range entries {
		if e.IsDir() || !isYAMLName(e.Name()) {
			continue
		}
		name := path.Join(channelsDir, e.Name())
		if err := readChannel(fsys, name, seen); err != nil {
			return nil, err
		}
	}
	vs := make([]version, 0, len(seen))
	for _, v := range seen {
		vs = append(vs, v)
	}
	slices.SortFunc(vs, compareVersions)
	return vs, nil
}

// readChannel parses one channel file and adds its versions to seen, keyed
// by their canonical string.
func readChannel(fsys fs.FS, name string, seen map[string]version) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("reading channel %s: %w", name, err)
	}
	var ch channelFile
	if err := yaml.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("parsing channel %s: %w", name, err)
	}
	for _, n := range ch.Versions {
		v, err := parseVersion(n)
		if err != nil {
			return fmt.Errorf("parsing channel %s:%d: %w", name, n.Line, err)
		}
		if _, ok := seen[v.str]; !ok {
			seen[v.str] = v
		}
	}
	return nil
}

// parseVersion parses a versions entry strictly and drops build metadata.
func parseVersion(n yaml.Node) (version, error) {
	if n.Kind != yaml.ScalarNode {
		return version{}, fmt.Errorf("version entry is not a scalar")
	}
	v, err := semver.StrictNewVersion(n.Value)
	if err != nil {
		return version{}, fmt.Errorf("version %q: %w", n.Value, err)
	}
	// Strict parsing guarantees the text before any "+" is canonical.
	str, _, _ := strings.Cut(n.Value, "+")
	v = semver.New(v.Major(), v.Minor(), v.Patch(), v.Prerelease(), "")
	return version{Version: v, str: str}, nil
}

// isYAMLName reports whether name's extension matches ya+ml (".yaml",
// ".yaaml", ...). In particular ".yml" does not match.
func isYAMLName(name string) bool {
	ext := path.Ext(name)
	mid, ok := strings.CutPrefix(ext, ".y")
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, "ml")
	return ok && mid != "" && strings.Trim(mid, "a") == ""
}

// compareVersions orders versions by SemVer precedence.
func compareVersions(a, b version) int {
	return a.Compare(b.Version)
}
