// Package viewstest reads a catalog source and converts it as generate
// does, for the tests that build trees with catalogs. It is used by tests
// only.
package viewstest

import (
	"testing"

	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
)

// Load reads the catalog source spec (dir:PATH, file:PATH) and converts
// it under name, failing the test on any error; validOnly is generate's
// --catalog-valid-only.
func Load(tb testing.TB, name, spec string, validOnly bool) *catviews.Catalog {
	tb.Helper()
	return LoadWith(tb, name, spec, validOnly, source.Options{})
}

// LoadWith is Load with the source made with opts (a CacheDir keeps the
// decoded files across loads, as generate's catalog cache does).
func LoadWith(tb testing.TB, name, spec string, validOnly bool, opts source.Options) *catviews.Catalog {
	tb.Helper()
	src, err := source.Parse(spec, opts)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, info, err := src.Load(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	c, err := catviews.New(name, src.String(), info, cfg, validOnly)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
