// Package synth synthesises release-metadata documents (the project's
// metadata:DIR input format) for every version named in the channels of an
// OpenShift graph-data tree.
//
// The output is deterministic: payload digests and errata URLs are derived
// from hashes of the version (and arch), and every slice is sorted. It exists
// so that tests and benchmarks have realistic release input for a real
// graph-data snapshot without needing the actual release images.
package synth
