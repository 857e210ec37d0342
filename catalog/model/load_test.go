package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// The shared real catalog (README beside it).
const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

// loadYAMLCatalog is a minimal FBC reader for these tests, independent of
// catalog/declcfg's loader: every file under root is a YAML (or JSON)
// stream of blobs; each is decoded by its schema, with the file and the
// line it starts on.
func loadYAMLCatalog(tb testing.TB, root string) *declcfg.DeclarativeConfig {
	tb.Helper()
	cfg := &declcfg.DeclarativeConfig{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc yaml.Node
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return err
			}
			var v any
			if err := doc.Decode(&v); err != nil {
				return err
			}
			blob, err := json.Marshal(v)
			if err != nil {
				return err
			}
			pos := declcfg.Position{File: filepath.ToSlash(rel), Line: doc.Line}
			if len(doc.Content) > 0 {
				pos.Line = doc.Content[0].Line
			}
			if err := addBlob(cfg, blob, pos); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

func addBlob(cfg *declcfg.DeclarativeConfig, blob []byte, pos declcfg.Position) error {
	var meta struct {
		Schema  string `json:"schema"`
		Package string `json:"package"`
		Name    string `json:"name"`
	}
	if err := json.Unmarshal(blob, &meta); err != nil {
		return err
	}
	cfg.Metas = append(cfg.Metas, declcfg.Meta{Schema: meta.Schema, Package: meta.Package, Name: meta.Name, Blob: blob, Pos: pos})
	switch meta.Schema {
	case declcfg.SchemaPackage:
		var p declcfg.Package
		if err := json.Unmarshal(blob, &p); err != nil {
			return err
		}
		p.Pos = pos
		cfg.Packages = append(cfg.Packages, p)
	case declcfg.SchemaChannel:
		var c declcfg.Channel
		if err := json.Unmarshal(blob, &c); err != nil {
			return err
		}
		c.Pos = pos
		cfg.Channels = append(cfg.Channels, c)
	case declcfg.SchemaBundle:
		var b declcfg.Bundle
		if err := json.Unmarshal(blob, &b); err != nil {
			return err
		}
		b.Pos = pos
		cfg.Bundles = append(cfg.Bundles, b)
	case declcfg.SchemaDeprecations:
		var d declcfg.Deprecation
		if err := json.Unmarshal(blob, &d); err != nil {
			return err
		}
		d.Pos = pos
		cfg.Deprecations = append(cfg.Deprecations, d)
	default:
		cfg.Others = append(cfg.Others, cfg.Metas[len(cfg.Metas)-1])
	}
	return nil
}

var (
	sharedOnce sync.Once
	sharedCfg  *declcfg.DeclarativeConfig
)

// sharedConfig loads the shared real catalog once per test binary.
func sharedConfig(tb testing.TB) *declcfg.DeclarativeConfig {
	tb.Helper()
	if _, err := os.Stat(sharedCatalog); err != nil {
		tb.Skipf("shared catalog not available: %v", err)
	}
	sharedOnce.Do(func() { sharedCfg = loadYAMLCatalog(tb, sharedCatalog) })
	if sharedCfg == nil {
		tb.Fatal("loading the shared catalog failed")
	}
	return sharedCfg
}

// replicate returns n copies of cfg, the packages of copy i renamed with
// the suffix -i (bundle and channel names stay: they are package-scoped).
func replicate(cfg *declcfg.DeclarativeConfig, n int) *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{}
	for i := range n {
		suffix := ""
		if i > 0 {
			suffix = "-" + strings.Repeat("x", i)
		}
		for _, p := range cfg.Packages {
			p.Name += suffix
			out.Packages = append(out.Packages, p)
		}
		for _, c := range cfg.Channels {
			c.Package += suffix
			out.Channels = append(out.Channels, c)
		}
		for _, b := range cfg.Bundles {
			b.Package += suffix
			props := make([]declcfg.Property, len(b.Properties))
			copy(props, b.Properties)
			for j, p := range props {
				if p.Type == propPackage {
					var v PackageProperty
					_ = json.Unmarshal(p.Value, &v)
					v.PackageName += suffix
					props[j].Value, _ = json.Marshal(v)
				}
			}
			b.Properties = props
			out.Bundles = append(out.Bundles, b)
		}
		for _, d := range cfg.Deprecations {
			d.Package += suffix
			out.Deprecations = append(out.Deprecations, d)
		}
	}
	return out
}
