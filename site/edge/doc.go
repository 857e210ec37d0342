// Package edge renders the Cincinnati graph API of package site for hosts
// that cannot run Go: an nginx configuration (NginxConfig) and a CloudFront
// Functions viewer-request handler (CloudFrontFunction). Both answer
// GET /graph?channel=&arch=&version= from the files of a generated tree,
// validating parameters and reporting errors exactly as the Go handler
// does; README.md lists what they cannot reproduce. Both also answer
// catalogd's API for a tree's operator catalogs (nginx in the same
// configuration, CloudFront with CloudFrontCatalogFunction), as
// docs/operators.md describes.
package edge
