// Command registryd is CNCF distribution's registry with only the
// filesystem storage driver: what internal/registrytest runs. It is its
// own module so that distribution's dependencies stay out of upgraph's,
// and it leaves out the cloud storage drivers and middlewares of
// cmd/registry, which took most of its build time (a fresh CI machine
// builds it; .ci/deps installs it).
package main

import (
	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

func main() {
	// RootCmd's commands exit non-zero themselves on failure.
	_ = registry.RootCmd.Execute()
}
