package edge

import _ "embed"

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

// CloudFrontCatalogFunction returns the source of a CloudFront Functions
// viewer-request handler (runtime cloudfront-js-2.0) that answers
// catalogd's API for the operator catalogs of a tree on the cache
// behaviour /catalogs/*; docs/operators.md describes the setup and what it
// answers differently from upgraph serve.
func CloudFrontCatalogFunction() string { return cloudFrontCatalogsJS }
