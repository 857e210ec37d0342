package validate

import (
	"errors"
	"io/fs"
	"path"
	"slices"

	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree/version"
)

// rollouts checks rollouts/: each file alone, then against the channels.
func (c *checker) rollouts(r *report) {
	entries, err := fs.ReadDir(c.fsys, rollout.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		r.errorf(rollout.Dir, 0, "L-rollout", "%v", err)
		return
	}
	var parsed []rollout.Rollout
	for _, e := range entries {
		name := path.Join(rollout.Dir, e.Name())
		if e.IsDir() || path.Ext(e.Name()) != ".yaml" {
			r.warnf(name, 0, "L-rollout-file", "not a .yaml file: ignored")
			continue
		}
		data, err := regularfile.Read(c.fsys, name, name, e.Type().IsRegular(), rollout.MaxFileBytes)
		if err != nil {
			r.errorf(name, 0, "L-rollout", "%v", err)
			continue
		}
		ro, err := rollout.Parse(name, data)
		r.schemaYAML(name, schema.Rollout, data, err == nil)
		if err != nil {
			for _, p := range problemsOf(err) {
				r.errorf(p.File, p.Line, "L-rollout", "%s", p.Message)
			}
			continue
		}
		parsed = append(parsed, ro)
	}
	if _, err := rollout.Load(c.fsys); err != nil {
		for _, p := range problemsOf(err) {
			if p.Line > 0 && slices.ContainsFunc(parsed, func(ro rollout.Rollout) bool { return ro.File == p.File }) {
				r.errorf(p.File, p.Line, "L-rollout-conflict", "%s", p.Message)
			}
		}
	}
	// Versions by channel, as the graph-builder reads the channels.
	inChannel := map[string]map[string]bool{}
	served := map[string]bool{}
	for _, ch := range c.channels {
		if !ch.read {
			continue
		}
		if inChannel[ch.name] == nil {
			inChannel[ch.name] = map[string]bool{}
		}
		for _, e := range ch.entries {
			inChannel[ch.name][e.v.Key()] = true
			served[e.v.Key()] = true
		}
	}
	for _, ro := range parsed {
		v, _ := version.Parse(ro.Version)
		if !served[v.Key()] {
			r.warnf(ro.File, ro.Line, "L-rollout-unknown", "%s is in no channel: this rollout throttles nothing", ro.Version)
		}
		for _, ch := range ro.Channels {
			switch {
			case inChannel[ch] == nil:
				r.errorf(ro.File, ro.Line, "L-rollout-channel", "channel %s does not exist", ch)
			case !inChannel[ch][v.Key()]:
				r.errorf(ro.File, ro.Line, "L-rollout-channel", "channel %s does not list %s", ch, ro.Version)
			}
		}
	}
}

// problemsOf unpacks the problems rollout returns (joined).
func problemsOf(err error) []*rollout.Problem {
	var out []*rollout.Problem
	if p, ok := err.(*rollout.Problem); ok {
		return []*rollout.Problem{p}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, problemsOf(e)...)
		}
	}
	return out
}
