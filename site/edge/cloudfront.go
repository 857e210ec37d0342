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
