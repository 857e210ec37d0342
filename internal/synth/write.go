package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"
)

// FileName returns the name WriteDir uses for r: "<version>+<arch>.json".
func FileName(r Release) string {
	return r.Version + "+" + r.Arch + ".json"
}

// WriteDir writes one file per release into dir (created if missing), named
// by FileName, as indented JSON with a trailing newline and no HTML
// escaping. The bytes depend only on the releases.
func WriteDir(dir string, releases []Release) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating release dir: %w", err)
	}
	for _, r := range releases {
		name := FileName(r)
		if r.Version == "" || r.Arch == "" || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("release %q for arch %q: invalid file name %q", r.Version, r.Arch, name)
		}
		data, err := Encode(r)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("writing release %s: %w", p, err)
		}
	}
	return nil
}

// Encode returns r as the bytes WriteDir writes: two-space indented JSON,
// no HTML escaping, trailing newline.
func Encode(r Release) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encoding release %s+%s: %w", r.Version, r.Arch, err)
	}
	return buf.Bytes(), nil
}

// MetadataFS returns the releases synthesised for the graph-data tree in
// graphData as an in-memory metadata:DIR tree (one file per release), for
// tests and benchmarks that need real-scale input without touching disk.
func MetadataFS(graphData fs.FS) (fstest.MapFS, error) {
	rs, err := FromGraphData(graphData)
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{}
	for _, r := range rs {
		data, err := Encode(r)
		if err != nil {
			return nil, err
		}
		files[FileName(r)] = &fstest.MapFile{Data: data}
	}
	return files, nil
}
