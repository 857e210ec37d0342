package declcfg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// largeCatalog writes the shared catalog copies times over as indented
// JSON streams and returns the directory.
func largeCatalog(tb testing.TB, copies int) string {
	tb.Helper()
	cfg, err := LoadFS(context.Background(), os.DirFS(sharedCatalog))
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	files := map[string]*bytes.Buffer{}
	for _, m := range cfg.Metas {
		pkg := m.Package
		if m.Schema == SchemaPackage {
			pkg = m.Name
		}
		buf := files[pkg]
		if buf == nil {
			buf = &bytes.Buffer{}
			files[pkg] = buf
		}
		if err := json.Indent(buf, m.Blob, "", "    "); err != nil {
			tb.Fatal(err)
		}
		buf.WriteByte('\n')
	}
	total := 0
	for k := range copies {
		for pkg, buf := range files {
			p := filepath.Join(dir, fmt.Sprintf("copy%d", k), pkg, "catalog.json")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				tb.Fatal(err)
			}
			total += buf.Len()
		}
	}
	tb.Logf("large catalog: %d files, %.1f MB", copies*len(files), float64(total)/1e6)
	return dir
}
