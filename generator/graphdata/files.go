package graphdata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"

	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/version"
)

func (l *loader) schemaVersion() error {
	data, err := fs.ReadFile(l.fsys, "version")
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
	data, err := fs.ReadFile(l.fsys, name)
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
func (l *loader) yamlDir(dir string, visit func(file string, data []byte)) error {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		return fmt.Errorf("graph-data: reading directory %s: %w", dir, err)
	}
	for _, e := range entries { // fs.ReadDir sorts by name
		name := e.Name()
		file := path.Join(dir, name)
		ext := extension(name)
		switch {
		case ext == "":
			l.report(&Problem{File: file, Category: MissingExtension, Message: "no file extension, ignored"})
			continue
		case !yamlExtension.MatchString(ext):
			l.report(&Problem{File: file, Category: InvalidExtension, Message: fmt.Sprintf("extension %q is not read (only .yaml); the file is ignored", ext)})
			continue
		}
		data, err := fs.ReadFile(l.fsys, file)
		if err != nil {
			l.report(&Problem{File: file, Category: Unreadable, Message: fmt.Sprintf("unreadable: %v", err)})
			continue
		}
		l.dg.add(file, data)
		visit(file, data)
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
