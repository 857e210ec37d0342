package main

import (
	"embed"
	"strings"
)

// helpFiles are the long help texts of the commands (their Description),
// one file per command, as text rather than Go string literals.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help text of command name: help/NAME.txt without its
// final newline.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("cmd/upgraph: no help text for " + name + ": " + err.Error()) // a file missing from help/ is a build mistake
	}
	return strings.TrimSuffix(string(b), "\n")
}
