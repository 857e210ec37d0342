package opcat

import (
	"errors"
	"fmt"

	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
)

// PathFlags are the flags of upgraph path for an operator (--catalog or
// --catalog-set), as given.
type PathFlags struct {
	Catalog, CatalogSet, Platform string // --catalog, --catalog-set, --catalog-platform
	Package, From, To, Channel    string // --package, --from, --to, --channel
	OLM, Format                   string // --olm, --format
	// Set says whether the flag of that name (without "--") was given:
	// an empty value given is refused where leaving the flag out is not.
	Set func(name string) bool
}

// Check checks the flags before anything is read, each refusal naming
// its flag, and returns --olm's runtime and, without --catalog-set,
// --catalog parsed.
func (f PathFlags) Check() (upgrade.Runtime, Arg, error) {
	for _, name := range []string{"arch", "via-eus", "unconditional-only", "id", "wariness"} {
		if f.Set(name) {
			return "", Arg{}, fmt.Errorf("--%s is for release paths, not with --catalog", name)
		}
	}
	olm, err := upgrade.ParseRuntime(f.OLM)
	if err != nil {
		return "", Arg{}, fmt.Errorf("--olm: %w", err)
	}
	if f.Set("catalog-platform") {
		if err := generator.CheckCatalogPlatform(f.Platform); err != nil {
			return "", Arg{}, err
		}
	}
	if f.Set("catalog-set") {
		if _, err := ReadSet(f.CatalogSet); err != nil {
			return "", Arg{}, err
		}
	}
	if !f.Set("catalog") && !f.Set("catalog-set") {
		return "", Arg{}, errors.New("--package, --olm and --catalog-platform need --catalog (the operator catalog) or --catalog-set")
	}
	var arg Arg
	if !f.Set("catalog-set") {
		if arg, err = ParseArg("catalog", f.Catalog, f.Platform); err != nil {
			return "", Arg{}, err
		}
	} else if f.Set("catalog") && catviews.CheckName(f.Catalog) != nil {
		return "", Arg{}, fmt.Errorf("--catalog %q: with --catalog-set, the name of the installed operator's catalog in the set", f.Catalog)
	}
	switch {
	case !f.Set("package"):
		return "", Arg{}, errors.New("--package is required with --catalog")
	case f.Package == "":
		return "", Arg{}, errors.New("--package: empty value: want an operator package of the catalog")
	case f.From == "":
		return "", Arg{}, errors.New("--from is required: the installed bundle, a version or a bundle name")
	case f.Set("to") && f.To == "":
		return "", Arg{}, errors.New("--to: empty value: want a version, a bundle name or head (the default)")
	case f.Set("channel") && f.Channel == "":
		return "", Arg{}, errors.New("--channel: empty value (leave it out for the default channel)")
	case f.Format != "text" && f.Format != "json":
		return "", Arg{}, fmt.Errorf("--format: want text or json, got %q", f.Format)
	}
	return olm, arg, nil
}
