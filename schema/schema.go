// Package schema holds the documents that describe upgraph's formats and
// API, embedded so the binary serves and checks them without files.
package schema

import _ "embed"

// OpenAPI is the OpenAPI 3 description of the graph API served by
// upgraph serve (and by policy-engines), with paths relative to the
// server's prefix.
//
//go:embed openapi.json
var OpenAPI []byte
