package graphdata

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"runtime"
	"sort"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

func (l *loader) schemaVersion() error {
	data, err := regularfile.Read(l.fsys, "version", l.show("version"), false, maxArchiveFile)
	if err != nil {
		return fmt.Errorf("graph-data version file: %w", err)
	}
	l.dg.add("version", data)
	v, err := version.Parse(string(data))
	if err != nil {
		return fmt.Errorf("version:1: %w", err)
	}
	if v.Major() != MaxSupported.Major() {
		return fmt.Errorf("version:1: unrecognized graph-data version %s: this upgraph reads major version %d (up to %s)", v, MaxSupported.Major(), MaxSupported)
	}
	if v.Minor() > MaxSupported.Minor() {
		l.gd.Warnings = append(l.gd.Warnings, &Problem{File: "version", Line: 1,
			Message: fmt.Sprintf("graph-data version %s is newer than %s and may use features upgraph ignores", v, MaxSupported)})
	}
	l.gd.SchemaVersion = v
	return nil
}

func (l *loader) rawMetadata() error {
	const name = "raw/metadata.json"
	data, err := regularfile.Read(l.fsys, name, l.show(name), false, maxArchiveFile)
	if err != nil {
		return fmt.Errorf("graph-data %s: %w", name, err)
	}
	l.dg.add(name, data)
	var raw map[string]map[string]string
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("%s: want {\"<version>\": {\"<key>\": \"<string>\"}}: %w", name, graph.JSONPosition(data, err))
	}
	if raw == nil {
		return fmt.Errorf("%s: want a JSON object, got null", name)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	// Upstream iterates a hash map; sorting makes appended values deterministic.
	sort.Strings(keys)
	for _, k := range keys {
		v, err := version.Parse(k)
		if err != nil {
			line := 1 + bytes.Count(data[:max(0, bytes.Index(data, []byte(`"`+k+`"`)))], []byte{'\n'})
			l.gd.Warnings = append(l.gd.Warnings, &Problem{File: name, Line: line, Message: fmt.Sprintf("skipping key: %v", err)})
			continue
		}
		l.gd.Raw = append(l.gd.Raw, RawMetadata{Version: v, Metadata: raw[k]})
	}
	return nil
}

var yamlExtension = regexp.MustCompile(`ya+ml`)

// yamlDir visits every YAML file of dir in file-name order, which fixes the
// order of risks on a conditional edge (upstream relies on lexical order).
// Files are read and parsed on every core, each into a loader of its own
// (visit only adds to its loader), and the results are merged in file
// order, so the outcome is that of visiting the files one by one.
func (l *loader) yamlDir(dir string, visit func(l *loader, file string, data []byte)) error {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		return fmt.Errorf("graph-data: reading directory %s: %w", dir, err)
	}
	files := make([]*loader, len(entries)) // fs.ReadDir sorts by name
	workers := runtime.GOMAXPROCS(0)
	regexps := make([]map[string]*regexp.Regexp, workers) // one per worker
	for w := range regexps {
		regexps[w] = map[string]*regexp.Regexp{}
	}
	_ = parallel.Run(context.Background(), workers, len(entries), func(_ context.Context, w, i int) error {
		f := &loader{fsys: l.fsys, opts: l.opts, gd: &GraphData{}, dg: &digester{}, prefix: l.prefix, regexps: regexps[w]}
		files[i] = f
		name := entries[i].Name()
		file := path.Join(dir, name)
		ext := extension(name)
		switch {
		case ext == "":
			f.report(&Problem{File: file, Category: MissingExtension, Message: "no file extension, ignored"})
			return nil
		case !yamlExtension.MatchString(ext):
			f.report(&Problem{File: file, Category: InvalidExtension, Message: fmt.Sprintf("extension %q is not read (only .yaml); the file is ignored", ext)})
			return nil
		}
		data, err := regularfile.Read(l.fsys, file, l.show(file), entries[i].Type().IsRegular(), maxArchiveFile)
		if err != nil {
			f.report(&Problem{File: file, Category: Unreadable, Message: fmt.Sprintf("unreadable: %v", err)})
			return nil
		}
		f.dg.add(file, data)
		visit(f, file, data)
		return nil
	})
	for _, f := range files {
		l.gd.Blocks = append(l.gd.Blocks, f.gd.Blocks...)
		l.gd.Risks = append(l.gd.Risks, f.gd.Risks...)
		l.gd.Channels = append(l.gd.Channels, f.gd.Channels...)
		l.gd.Warnings = append(l.gd.Warnings, f.gd.Warnings...)
		l.errs = append(l.errs, f.errs...)
		l.dg.lines = append(l.dg.lines, f.dg.lines...)
	}
	return nil
}

// extension is the text after the last '.', or "" for none (including
// leading-dot names such as .keep).
func extension(name string) string {
	for i := len(name) - 1; i > 0; i-- {
		if name[i] == '.' {
			return name[i+1:]
		}
	}
	return ""
}
