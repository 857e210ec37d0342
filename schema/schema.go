// Package schema holds the documents that describe upgraph's formats and
// API, embedded so the binary serves and checks them without files: the
// OpenAPI description of the graph API, and JSON Schemas (draft 2020-12)
// for every format upgraph reads or writes, with Validate and ValidateYAML
// to check documents against them (see README.md for what each schema
// enforces and what is checked in code instead).
package schema

import _ "embed"

// OpenAPI is the OpenAPI 3 description of the graph API served by
// upgraph serve (and by policy-engines), with paths relative to the
// server's prefix.
//
//go:embed openapi.json
var OpenAPI []byte
