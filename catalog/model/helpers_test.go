package model

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Builders mirroring operator-registry's alpha/declcfg/helpers_test.go
// (newTestBundle, newTestPackage, newTestChannel) and alpha/property's
// MustBuild* helpers, so the ported cases read like upstream's.

func testBundleName(pkg, version string) string  { return fmt.Sprintf("%s.v%s", pkg, version) }
func testBundleImage(pkg, version string) string { return fmt.Sprintf("%s-bundle:v%s", pkg, version) }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func propPackageValue(name, version string) declcfg.Property {
	return declcfg.Property{Type: propPackage, Value: mustJSON(map[string]string{"packageName": name, "version": version})}
}

func propPackageRelease(name, version, release string) declcfg.Property {
	return declcfg.Property{Type: propPackage, Value: mustJSON(map[string]string{"packageName": name, "version": version, "release": release})}
}

func bundleObjectProp(data string) declcfg.Property {
	return declcfg.Property{Type: propBundleObject, Value: mustJSON(map[string]string{"data": base64.StdEncoding.EncodeToString([]byte(data))})}
}

func propGVKValue(group, version, kind string) declcfg.Property {
	return declcfg.Property{Type: propGVK, Value: mustJSON(map[string]string{"group": group, "version": version, "kind": kind})}
}

type bundleOpt func(*declcfg.Bundle)

func withNoProperties() bundleOpt {
	return func(b *declcfg.Bundle) { b.Properties = []declcfg.Property{} }
}
func withNoBundleImage() bundleOpt { return func(b *declcfg.Bundle) { b.Image = "" } }
func withProps(ps ...declcfg.Property) bundleOpt {
	return func(b *declcfg.Bundle) { b.Properties = ps }
}

// newTestBundle is upstream's: image, olm.package, two olm.bundle.object
// properties (a CSV and a CRD), a related image.
func newTestBundle(pkg, version string, opts ...bundleOpt) declcfg.Bundle {
	csv := fmt.Sprintf(`{"kind": "ClusterServiceVersion", "apiVersion": "operators.coreos.com/v1alpha1", "metadata":{"name":%q}}`, testBundleName(pkg, version))
	b := declcfg.Bundle{
		Schema:  declcfg.SchemaBundle,
		Name:    testBundleName(pkg, version),
		Package: pkg,
		Image:   testBundleImage(pkg, version),
		Properties: []declcfg.Property{
			propPackageValue(pkg, version),
			bundleObjectProp(csv),
			bundleObjectProp(`{"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1"}`),
		},
		RelatedImages: []declcfg.RelatedImage{{Name: "bundle", Image: testBundleImage(pkg, version)}},
	}
	for _, o := range opts {
		o(&b)
	}
	// upstream sorts the properties by type, then value
	slices.SortFunc(b.Properties, func(x, y declcfg.Property) int {
		return cmp.Or(cmp.Compare(x.Type, y.Type), cmp.Compare(string(x.Value), string(y.Value)))
	})
	return b
}

func newTestPackage(name, defaultChannel string) declcfg.Package {
	return declcfg.Package{Schema: declcfg.SchemaPackage, Name: name, DefaultChannel: defaultChannel,
		Icon: &declcfg.Icon{Data: []byte(`<svg viewBox="0 0 100 100"><circle cx="25" cy="25" r="25"/></svg>`), MediaType: "image/svg+xml"}}
}

func newTestChannel(pkg, name string, entries ...declcfg.ChannelEntry) declcfg.Channel {
	return declcfg.Channel{Schema: declcfg.SchemaChannel, Name: name, Package: pkg, Entries: entries}
}

// simpleBundle is a bundle of pkg named name with version, with an image.
func simpleBundle(pkg, name, version string) declcfg.Bundle {
	return declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: name, Package: pkg, Image: "registry.io/" + pkg + ":" + strings.ReplaceAll(version, "+", "_"),
		Properties: []declcfg.Property{propPackageValue(pkg, version)}}
}

// catalogOf builds a one-package catalog: channels of entries; bundles
// named in the entries with the versions given (name → version).
func catalogOf(pkg, defaultChannel string, versions map[string]string, channels ...declcfg.Channel) *declcfg.DeclarativeConfig {
	cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{newTestPackage(pkg, defaultChannel)}, Channels: channels}
	names := make([]string, 0, len(versions))
	for n := range versions {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		cfg.Bundles = append(cfg.Bundles, simpleBundle(pkg, n, versions[n]))
	}
	return cfg
}

// errorsOf returns the messages of c's errors.
func errorsOf(c *Catalog) []string {
	var out []string
	for _, p := range c.Problems {
		if p.Severity == Error {
			out = append(out, fmt.Sprintf("[%s] %s", p.Rule, p.Message))
		}
	}
	return out
}

// hasProblem reports whether some problem has the rule and a message
// containing msg.
func hasProblem(ps Problems, rule, msg string) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Rule == rule && strings.Contains(p.Message, msg) })
}

func requireProblem(t *testing.T, c *Catalog, rule, msg string) {
	t.Helper()
	if !hasProblem(c.Problems, rule, msg) {
		var all []string
		for _, p := range c.Problems {
			all = append(all, p.String())
		}
		t.Fatalf("no %s problem containing %q; got:\n%s", rule, msg, strings.Join(all, "\n"))
	}
}
