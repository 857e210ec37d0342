package edge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// The options of upgraph edge nginx come from its flags; what is checked
// and read for them is here, so that every refusal names the flag as it is
// typed (--name) and the command only parses, calls and prints.

// NginxPrefixes is --prefix's values as routes: without a trailing slash,
// with a leading one, "" (or "/") for the root; never nil, for nil
// means the default prefixes (give it only when --prefix is set).
func NginxPrefixes(values []string) []string {
	prefixes := []string{}
	for _, p := range values {
		if p = strings.Trim(p, "/"); p != "" {
			p = "/" + p
		}
		prefixes = append(prefixes, p)
	}
	return prefixes
}

// Check is Validate for options given as flags: an error names the flag,
// each value being validated alone in options that are otherwise valid,
// then anything the flags only break together.
func (o NginxOptions) Check() error {
	if !o.Full && (o.StateDir != "" || o.Foreground || o.User != "") {
		return fmt.Errorf("--state-dir, --foreground and --user need --full")
	}
	for _, f := range []struct {
		flag string
		set  func(alone *NginxOptions)
	}{
		{"root", func(alone *NginxOptions) { alone.Root = o.Root }},
		{"listen", func(alone *NginxOptions) { alone.Listen = o.Listen }},
		{"prefix", func(alone *NginxOptions) { alone.Prefixes = o.Prefixes }},
		{"cache-control", func(alone *NginxOptions) { alone.CacheControl = o.CacheControl }},
		{"state-dir", func(alone *NginxOptions) { alone.StateDir = o.StateDir }},
		{"user", func(alone *NginxOptions) { alone.User = o.User }},
	} {
		alone := NginxOptions{Root: "/", Listen: "8080", Full: o.Full}
		f.set(&alone)
		if err := alone.Validate(); err != nil {
			return fmt.Errorf("--%s: %w", f.flag, err)
		}
	}
	return o.Validate()
}

// NginxConfigForTree is NginxConfig for the tree at opts.Root, checked
// (Check): a tree with phased rollouts gets the bucket maps for its N,
// one without (or not generated yet) the configuration as before, and a
// tree nginx's maps cannot bound is refused (CheckNginxBound).
func NginxConfigForTree(opts NginxOptions) (string, error) {
	if err := opts.Check(); err != nil {
		return "", err
	}
	if m, err := manifest.Read(opts.Root); err == nil {
		if m.Rollouts != nil {
			opts.RolloutBuckets = m.Rollouts.Buckets
		}
		if err := CheckNginxBound(m); err != nil {
			return "", fmt.Errorf("--root %s: %w", opts.Root, err)
		}
	}
	return NginxConfig(opts), nil
}

// CloudFrontCatalogs is the catalogd function for the operator catalogs of
// the tree at root (edge cloudfront --catalogs --root).
func CloudFrontCatalogs(root string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("--catalogs needs --root, the tree whose catalogs the function serves")
	}
	m, err := manifest.Read(root)
	if err != nil {
		return "", fmt.Errorf("--root: %w", err)
	}
	names := site.CatalogNames(m)
	if len(names) == 0 {
		return "", fmt.Errorf("--root %s: the tree has no operator catalog", root)
	}
	fn, err := CloudFrontCatalogFunction(names)
	if err != nil {
		return "", fmt.Errorf("--root %s: %w", root, err)
	}
	return fn, nil
}

// CheckKVS refuses --kvs (kvs, set when given) but for the graph function
// of a tree (--root without --catalogs), and an empty one.
func CheckKVS(kvs string, set, catalogs, rootSet bool) error {
	if !set {
		return nil
	}
	switch {
	case kvs == "":
		return fmt.Errorf("--kvs is empty: want the file to write the KeyValueStore import file to")
	case catalogs || !rootSet:
		return fmt.Errorf("--kvs %s: only for the graph function of a tree with phased rollouts (--root without --catalogs)", kvs)
	}
	return nil
}

// WriteCloudFrontRollouts is the graph function for the tree at root,
// which must have phased rollouts (the only reason to name a tree for the
// graph function), having written its KeyValueStore import file to kvs.
func WriteCloudFrontRollouts(root, kvs string) (string, error) {
	fn, store, err := CloudFrontRollouts(root)
	if err != nil {
		return "", fmt.Errorf("--root: %w; --root without --catalogs is for a tree with phased rollouts", err)
	}
	if kvs == "" {
		return "", fmt.Errorf("--root %s: the rollout function reads its table from a CloudFront KeyValueStore: give --kvs FILE for the store's import file", root)
	}
	if err := replaceFile(kvs, store); err != nil {
		return "", fmt.Errorf("--kvs %s: %w", kvs, err)
	}
	return fn, nil
}

// replaceFile writes data to name through a temporary file beside it, so
// name is never half written.
func replaceFile(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".upgraph-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
