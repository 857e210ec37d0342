package validate

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/version"
)

// channelDirNames are where graph-data.rs reads channels (Y2, Y3, C1); only
// channels/ reaches the graph-builder.
var channelDirNames = []string{"channels", "internal-channels"}

type channelFile struct {
	file string
	// read says upstream's parser reads it: in channels/ with an extension
	// matching ya+ml.
	read     bool
	name     string
	nameLine int
	entries  []entry
}

type entry struct {
	v    version.Version
	line int
}

// channelJobs lists the entries of both channel directories.
func (c *checker) channelJobs() []*job {
	var jobs []*job
	for _, dir := range channelDirNames {
		entries, err := fs.ReadDir(c.fsys, dir)
		switch {
		case err == nil:
		case dir != "channels" && errors.Is(err, fs.ErrNotExist):
			continue // internal-channels/ is graph-data's own business
		case dir == "channels":
			c.errorf(dir, 0, "P3", "reading directory: %v", unwrapPath(err))
			continue
		default:
			c.errorf(dir, 0, "Y2", "reading directory: %v", unwrapPath(err))
			continue
		}
		for _, de := range entries { // sorted by name
			jobs = append(jobs, &job{check: func(r *report) func() {
				if ch := checkChannelFile(c.fsys, r, dir, de.Name()); ch != nil {
					return func() { c.channels = append(c.channels, ch) }
				}
				return nil
			}})
		}
	}
	return jobs
}

// checkChannelFile runs the checks of one file; it returns the channel
// when the file parses as one.
func checkChannelFile(fsys fs.FS, r *report, dir, name string) *channelFile {
	file := path.Join(dir, name)
	ext := extension(name)
	read := dir == "channels" && yamlExt.MatchString(ext)
	switch {
	case ext == "":
		r.errorf(file, 0, "Y2", "no file extension: graph-data CI rejects it (upstream's parser ignores it)")
		return nil
	case dir == "channels" && !read:
		r.warnf(file, 0, "L-ignored-file", "upstream's parser ignores .%s files in channels/ (it reads .yaml), so this channel is never published", ext)
	}
	data, err := regularfile.Read(fsys, file, file, false, graphdata.MaxFileBytes)
	if err != nil {
		r.errorf(file, 0, "Y2", "unreadable: %v", unwrapPath(err))
		return nil
	}
	ch, line, perr := parseChannel(file, data)
	if yamlExt.MatchString(ext) { // internal-channels/ too: graph-data's tooling reads them
		r.schemaYAML(file, channelSchema, data, !isYAMLError(perr))
	}
	if perr != nil {
		// Upstream drops such a file silently and graph-data.rs tolerates
		// it (§3.3): only a file the graph-builder reads matters.
		if read {
			r.errorf(file, line, "L-channel-invalid", "upstream silently drops this channel: %v", perr)
		}
		return nil
	}
	ch.read = read
	if read && !strings.Contains(ch.name, "-") {
		r.errorf(file, ch.nameLine, "P4", "channel name %q has no '-': upstream panics sorting channel lists (names are <stream>-<major>.<minor>)", ch.name)
	}
	if read && strings.TrimSuffix(name, "."+ext) != ch.name {
		r.warnf(file, ch.nameLine, "L-channel-file-name", "channel %s is declared in %s; its name, not the file name, is what clusters subscribe to", ch.name, name)
	}
	return ch
}

// yamlError marks a channel file that is not YAML at all.
type yamlError struct{ error }

func isYAMLError(err error) bool {
	var ye yamlError
	return errors.As(err, &ye)
}

// parseChannel reads {name, versions} as upstream does (other keys are
// ignored); the int is the line of the problem.
func parseChannel(file string, data []byte) (*channelFile, int, error) {
	root, err := parseYAML(data)
	if err != nil {
		return nil, yamlErrorLine(err), yamlError{err}
	}
	m := asMapping(root)
	if m == nil {
		return nil, 1, fmt.Errorf("want a mapping with name and versions, got %s", describeRoot(root))
	}
	if m.dupLine != 0 {
		return nil, m.dupLine, fmt.Errorf("duplicate key %q", m.dupKey)
	}
	name, line, err := stringField(m, "name")
	if err != nil {
		return nil, line, err
	}
	ch := &channelFile{file: file, name: name, nameLine: line}
	vs, ok := m.values["versions"]
	switch {
	case !ok:
		return nil, m.node.Line, fmt.Errorf("missing %q", "versions")
	case vs.Kind != yaml.SequenceNode:
		return nil, vs.Line, fmt.Errorf("versions must be a list, got %s", describe(vs))
	}
	for _, item := range vs.Content {
		if !isString(item) {
			return nil, item.Line, fmt.Errorf("version must be a string, got %s", describe(item))
		}
		v, err := version.Parse(item.Value)
		if err != nil {
			return nil, item.Line, err
		}
		ch.entries = append(ch.entries, entry{v: v, line: item.Line})
	}
	return ch, 0, nil
}

// channelLints checks what upstream accepts but is almost surely a
// mistake in the channels the graph-builder reads.
func (c *checker) channelLints(r *report) {
	declared := map[string]*channelFile{}
	for _, ch := range c.channels {
		if !ch.read {
			continue
		}
		if prev, ok := declared[ch.name]; ok {
			r.warnf(ch.file, ch.nameLine, "L-duplicate-channel", "channel %s is also declared by %s:%d; upstream lists it twice on every release of both", ch.name, prev.file, prev.nameLine)
		} else {
			declared[ch.name] = ch
		}
		listed := map[string]int{}
		for _, e := range ch.entries {
			if l, dup := listed[e.v.String()]; dup {
				r.warnf(ch.file, e.line, "L-duplicate-version", "%s is already listed on line %d", e.v, l)
			}
			listed[e.v.String()] = e.line
		}
		versionOrder(r, ch)
	}
}

// versionOrder warns once per run of entries that go down, so a list
// pasted in reverse is one warning, not one per line.
func versionOrder(r *report, ch *channelFile) {
	es := ch.entries
	for i := 1; i < len(es); i++ {
		if !descends(es[i-1].v, es[i].v) {
			continue
		}
		start := i
		for i+1 < len(es) && descends(es[i].v, es[i+1].v) {
			i++
		}
		more := ""
		if n := i - start; n > 0 {
			more = fmt.Sprintf(" (and so do the %d entries after it, down to %s)", n, es[i].v)
		}
		r.warnf(ch.file, es[start].line, "L-version-order", "%s is listed after %s (line %d)%s; channels list versions in SemVer order", es[start].v, es[start-1].v, es[start-1].line, more)
	}
}

// descends reports whether b listed after a breaks SemVer order. A release
// listed before its own pre-releases (4.9.0, 4.9.0-fc.0) is graph-data's
// convention, what sort -V produces, and not flagged.
func descends(a, b version.Version) bool {
	if !version.Less(b, a) {
		return false
	}
	sameRelease := a.Major() == b.Major() && a.Minor() == b.Minor() && a.Patch() == b.Patch()
	return !(sameRelease && a.Pre() == "" && b.Pre() != "")
}

// channelOrdering is C1: a release promoted to stable-X must be in fast-X,
// and one in fast-X in candidate-X (containment ignores the build).
func (c *checker) channelOrdering(r *report) {
	byName := map[string]*channelFile{}
	var streams []string
	seen := map[string]bool{}
	for _, ch := range c.channels { // later files win, as in graph-data.rs's map
		byName[ch.name] = ch
		x := ch.name[strings.LastIndexByte(ch.name, '-')+1:]
		if !seen[x] {
			seen[x] = true
			streams = append(streams, x)
		}
	}
	order := []string{"stable", "fast", "candidate"}
	for _, x := range streams {
		if x == "4.1" { // predates the channel scheme; graph-data CI exempts it
			continue
		}
		for i := 0; i+1 < len(order); i++ {
			a, ok := byName[order[i]+"-"+x]
			if !ok {
				continue
			}
			bName := order[i+1] + "-" + x
			b, ok := byName[bName]
			if !ok {
				r.errorf(a.file, a.nameLine, "C1", "channel %s exists, but not %s", a.name, bName)
				continue
			}
			inB := map[string]bool{}
			for _, e := range b.entries {
				inB[e.v.Key()] = true
			}
			for _, e := range a.entries {
				if !inB[e.v.Key()] {
					r.errorf(a.file, e.line, "C1", "release %s is in %s, but not in %s (%s)", e.v, a.name, bName, b.file)
					inB[e.v.Key()] = true // report a version once
				}
			}
		}
	}
}
