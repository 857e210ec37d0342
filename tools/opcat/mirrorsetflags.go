package opcat

import (
	"errors"
	"fmt"

	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/path"
)

// MirrorSetFlags are upgraph mirror-set's flags, as given.
type MirrorSetFlags struct {
	Installed, OLM, Platform, Format, Out string   // --installed, --olm, --catalog-platform, --format, --out
	From, To, Channel, Arch               string   // --from, --to, --channel, --arch
	Catalogs                              []string // --catalog's values
	// Set says whether the flag of that name (without "--") was given:
	// an empty value given is refused where leaving the flag out is not.
	Set func(name string) bool
}

// Operators reports whether the operators are planned (--installed).
func (f MirrorSetFlags) Operators() bool { return f.Set("installed") }

// Release reports whether the cluster's path is planned (--from, --to or
// --channel).
func (f MirrorSetFlags) Release() bool { return f.Set("from") || f.Set("to") || f.Set("channel") }

// Check checks the flags before anything is read, each refusal naming its
// flag, and returns --olm's runtime.
func (f MirrorSetFlags) Check() (upgrade.Runtime, error) {
	operators, release := f.Operators(), f.Release()
	if !operators && !release {
		return "", errors.New("nothing to plan: give --installed (with --catalog) for operators, or --from, --to and --channel for the cluster")
	}
	olm, err := upgrade.ParseRuntime(f.OLM)
	if err != nil {
		return "", fmt.Errorf("--olm: %w", err)
	}
	if f.Set("catalog-platform") {
		if err := generator.CheckCatalogPlatform(f.Platform); err != nil {
			return "", err
		}
	}
	if f.Format != "text" && f.Format != "json" {
		return "", fmt.Errorf("--format: want text or json, got %q", f.Format)
	}
	switch {
	case operators && f.Installed == "":
		return "", errors.New("--installed: empty value: want a YAML or JSON file")
	case operators:
		if err := cliflag.CheckPath("installed", f.Installed, cliflag.WantFile); err != nil {
			return "", err
		}
		if !f.Set("catalog") && !f.Set("catalog-set") {
			return "", errors.New("--installed needs --catalog (or --catalog-set): the catalog(s) the operators come from")
		}
	case f.Set("catalog") || f.Set("catalog-set") || f.Set("olm") || f.Set("catalog-platform"):
		return "", errors.New("--catalog, --catalog-set, --olm and --catalog-platform need --installed (the operators to plan)")
	}
	if f.Set("catalog") && len(f.Catalogs) == 0 {
		return "", errors.New("--catalog: empty value")
	}
	if release {
		for _, v := range []struct{ name, value string }{{"from", f.From}, {"to", f.To}, {"channel", f.Channel}} {
			if v.value == "" {
				return "", fmt.Errorf("--%s is required for the cluster's path (with --from, --to and --channel)", v.name)
			}
		}
		req := path.Request{From: f.From, To: f.To, Channel: f.Channel, Arch: f.Arch}
		if err := req.Check(); err != nil {
			return "", err
		}
	} else {
		for _, name := range []string{"arch", "via-eus", "unconditional-only"} {
			if f.Set(name) {
				return "", fmt.Errorf("--%s is for the cluster's path: give --from, --to and --channel", name)
			}
		}
	}
	return olm, mirrorset.CheckOut(f.Out, f.Set("out"))
}
