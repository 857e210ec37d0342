package edge

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

//go:embed cloudfront.js
var cloudFrontJS string

// CloudFrontFunction returns the source of a CloudFront Functions
// viewer-request handler (runtime cloudfront-js-2.0) that serves the graph
// API from an S3 copy of a tree; README.md describes the distribution it
// expects.
func CloudFrontFunction() string { return cloudFrontJS }

// CloudFrontMaxSize is the largest function CloudFront accepts.
const CloudFrontMaxSize = 10 << 10

//go:embed cloudfront_catalogs.js
var cloudFrontCatalogsJS string

// catalogsPlaceholder is the line of cloudfront_catalogs.js that
// CloudFrontCatalogFunction replaces with the tree's catalogs.
const catalogsPlaceholder = "var CATALOGS = {};\n"

var catalogName = regexp.MustCompile(`^` + dns1123Subdomain + `$`)

// CloudFrontCatalogFunction returns the source of a CloudFront Functions
// viewer-request handler (runtime cloudfront-js-2.0) that answers
// catalogd's API for the operator catalogs of a tree on the cache
// behaviour /catalogs/*; docs/operators.md describes the setup and what it
// answers differently from upgraph serve. catalogs are the tree's
// catalog names (site.CatalogNames): any other catalog is answered 404,
// as catalogd does, so the function is generated again when they change.
// It refuses names catalogd would not accept, and a function larger than
// CloudFront accepts.
func CloudFrontCatalogFunction(catalogs []string) (string, error) {
	names := slices.Sorted(slices.Values(catalogs))
	var b strings.Builder
	b.WriteString("var CATALOGS = {")
	for i, c := range slices.Compact(names) {
		if len(c) > 253 || !catalogName.MatchString(c) {
			return "", fmt.Errorf("catalog name %q: not a DNS-1123 subdomain of at most 253 characters", c)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "'%s': 1", c)
	}
	b.WriteString("};\n")
	fn := strings.Replace(cloudFrontCatalogsJS, catalogsPlaceholder, b.String(), 1)
	if len(fn) > CloudFrontMaxSize {
		return "", fmt.Errorf("the catalogs function for %d catalogs is %d bytes, more than CloudFront's %d", len(names), len(fn), CloudFrontMaxSize)
	}
	return fn, nil
}
