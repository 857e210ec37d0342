package rollout

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tree/version"
)

// Dir is graph-data's directory of rollouts. Upstream's graph-builder
// reads only version, raw/, blocked-edges/ and channels/ (openshift/
// cincinnati's openshift-secondary-metadata-parse plugin), so a repository
// with rollouts/ still works with it: clusters it serves see every
// release at once.
const Dir = "rollouts"

// Problem is a refusal tied to a file and line of graph-data.
type Problem struct {
	File    string
	Line    int
	Message string
}

func (p *Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return p.File + ": " + p.Message
}

// MaxFileBytes bounds a rollout file, as graph-data's other files are
// bounded: a pipe or a device under a file's name, or a file over it, is
// refused naming it before it is read.
const MaxFileBytes = 64 << 20

// Load reads every rollouts/*.yaml file of a graph-data tree, in file-name
// order. Each holds one rollout:
//
//	version: 4.16.3            # the release
//	channels: [stable-4.16]    # optional: only these channels
//	start_epoch: 1790000000    # Unix seconds
//	start_percentage: 0.1      # a fraction in [0, 1], as FCOS
//	duration_minutes: 2880     # optional: without it the share stays
//
// A tree without rollouts/ has none. Every problem is returned, each
// naming its file and line; files without a .yaml extension (README.md,
// OWNERS) are skipped as graph-data's other directories skip them.
func Load(fsys fs.FS) ([]Rollout, error) {
	entries, err := fs.ReadDir(fsys, Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("graph-data %s/: %w", Dir, err)
	}
	var (
		out  []Rollout
		errs []error
	)
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".yaml" {
			continue
		}
		name := path.Join(Dir, e.Name())
		data, err := regularfile.Read(fsys, name, name, e.Type().IsRegular(), MaxFileBytes)
		if err != nil {
			errs = append(errs, fmt.Errorf("graph-data %s: %w", name, err))
			continue
		}
		r, err := Parse(name, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	errs = append(errs, conflicts(out)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// conflicts refuses two rollouts of one release that apply in a common
// channel: which schedule a cluster follows would be arbitrary.
func conflicts(rs []Rollout) []error {
	var errs []error
	for i := range rs {
		for j := range i {
			a, b := &rs[j], &rs[i]
			if a.Version != b.Version {
				continue
			}
			common := a.Channels == nil || b.Channels == nil
			for _, c := range a.Channels {
				common = common || b.InChannel(c)
			}
			if common {
				errs = append(errs, &Problem{b.File, b.Line, fmt.Sprintf("a second rollout of %s in a channel %s:%d already rolls it out in; give each its channels", b.Version, a.File, a.Line)})
			}
		}
	}
	return errs
}

var known = []string{"version", "channels", "start_epoch", "start_percentage", "duration_minutes"}

// Parse reads one rollout file; file names it in problems.
func Parse(file string, data []byte) (Rollout, error) {
	r := Rollout{File: file, Line: 1}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return r, &Problem{file, 0, err.Error()}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return r, &Problem{file, 1, "want a mapping with version, start_epoch, start_percentage and optionally channels and duration_minutes"}
	}
	top := doc.Content[0]
	r.Line = top.Line
	var errs []error
	bad := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, &Problem{file, n.Line, fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if seen[k.Value] {
			bad(k, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "version":
			ver, err := version.Parse(v.Value)
			switch {
			case v.Kind != yaml.ScalarNode:
				bad(v, "version: want a release version, got a %s", kind(v))
			case err != nil:
				bad(v, "version %q: %v", v.Value, err)
			default:
				r.Version = ver.String()
			}
		case "channels":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				bad(v, "channels: want a non-empty list of channel names (leave it out for every channel)")
				continue
			}
			r.Channels = []string{}
			for _, c := range v.Content {
				if c.Kind != yaml.ScalarNode || !policy.ValidChannel(c.Value) {
					bad(c, "channels: %q is not a channel name (%s)", c.Value, policy.ChannelPattern)
					continue
				}
				if slices.Contains(r.Channels, c.Value) {
					bad(c, "channels: %s listed twice", c.Value)
					continue
				}
				r.Channels = append(r.Channels, c.Value)
			}
		case "start_epoch":
			n, err := strconv.ParseInt(v.Value, 10, 64)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 0 || n > 1<<40 {
				bad(v, "start_epoch: want Unix seconds, a whole number from 0, got %q", v.Value)
				continue
			}
			r.StartEpoch = n
		case "start_percentage":
			f, err := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || err != nil || math.IsNaN(f) || f < 0 || f > 1 {
				bad(v, "start_percentage: want a fraction from 0 to 1 (0.1 is ten per cent, as in Fedora CoreOS), got %q", v.Value)
				continue
			}
			r.StartValue = f
		case "duration_minutes":
			n, err := strconv.ParseInt(v.Value, 10, 64)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 1 || n > 1<<30 {
				bad(v, "duration_minutes: want a whole number of minutes from 1, got %q", v.Value)
				continue
			}
			r.DurationMinutes = n
		default:
			bad(k, "unknown key %q (known: %s)", k.Value, strings.Join(known, ", "))
		}
	}
	for _, key := range []string{"version", "start_epoch", "start_percentage"} {
		if !seen[key] {
			bad(top, "missing %s", key)
		}
	}
	if len(errs) > 0 {
		return r, errors.Join(errs...)
	}
	return r, nil
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "scalar"
}
