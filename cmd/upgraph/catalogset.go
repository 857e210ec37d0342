package main

import (
	"github.com/urfave/cli/v2"
)

// catalogSetFlag is --catalog-set of path, plan, mirror-set and generate.
func catalogSetFlag(usage string) cli.Flag {
	return &cli.StringFlag{Name: "catalog-set", Usage: usage}
}
