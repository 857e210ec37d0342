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

// helpTerms are the texts several help files share, named in them as
// {{NAME}}.
var helpTerms = strings.NewReplacer("{{location}}", locationHelp, "{{catalog-source}}", catalogSourceSyntax)

// help is the long help text of command name: help/NAME.txt without its
// final newline, its {{terms}} spelled out.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("cmd/upgraph: no help text for " + name + ": " + err.Error()) // a file missing from help/ is a build mistake
	}
	return helpTerms.Replace(strings.TrimSuffix(string(b), "\n"))
}
