// Package registrytest is shared test infrastructure for the registry-scraping
// tests: it runs a real CNCF distribution v3 registry (registryd, installed by .ci/deps),
// puts a counting, fault-injecting HTTP proxy in front of it, and builds and
// pushes OpenShift-style release images with go-containerregistry.
//
// Everything here is deterministic: the same layer or image spec always yields
// the same digest, so tests can hard-code expectations about content addresses
// and benchmarks compare like with like.
package registrytest
