package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/tools/opcat"
	"github.com/upgraph/upgraph/tools/path"
)

// Flags are upgraph plan's flags, as given.
type Flags struct {
	From, To, Channel, Arch, Format string   // --from, --to, --channel, --arch, --format
	OLM, Platform, Operators        string   // --olm, --catalog-platform, --operators
	CatalogSet                      string   // --catalog-set
	Catalogs                        []string // --catalogs' values, comma-separated or repeated, empty ones dropped
	// Set says whether the flag of that name (without "--") was given:
	// an empty value given is refused where leaving the flag out is not.
	Set func(name string) bool
}

// Check checks the flags, but for --source's, before anything is read,
// each refusal naming its flag, and returns --olm's runtime and
// --catalogs parsed (nil with --catalog-set).
func (f Flags) Check() (upgrade.Runtime, []Given, error) {
	if err := path.CheckGiven(f.From, f.To, f.Channel, f.Format); err != nil {
		return "", nil, err
	}
	req := path.Request{From: f.From, To: f.To, Channel: f.Channel, Arch: f.Arch}
	if err := req.Check(); err != nil {
		return "", nil, err
	}
	var ends []Minor
	for _, v := range []string{f.From, f.To} {
		m, _ := MinorOf(v) // a version: checked above
		ends = append(ends, m)
	}
	olm, err := upgrade.ParseRuntime(f.OLM)
	if err != nil {
		return "", nil, fmt.Errorf("--olm: %w", err)
	}
	if f.Set("catalog-platform") {
		if err := generator.CheckCatalogPlatform(f.Platform); err != nil {
			return "", nil, err
		}
	}
	switch {
	case !f.Set("operators"):
		return "", nil, errors.New("--operators is required: the installed operators, a YAML or JSON list of {package, channel, version}")
	case f.Operators == "":
		return "", nil, errors.New("--operators: empty value: want a YAML or JSON file")
	}
	if err := cliflag.CheckPath("operators", f.Operators, cliflag.WantFile); err != nil {
		return "", nil, err
	}
	if f.Set("catalog-set") {
		if f.Set("catalogs") {
			return "", nil, errors.New("--catalogs and --catalog-set: give one")
		}
		_, err := opcat.ReadSet(f.CatalogSet)
		return olm, nil, err
	}
	// --catalogs: vX.Y=SOURCE, each minor once.
	if !f.Set("catalogs") {
		return "", nil, errors.New("--catalogs is required: the catalog of each minor on the path, vX.Y=SOURCE")
	}
	if len(f.Catalogs) == 0 {
		return "", nil, errors.New("--catalogs: empty value: want vX.Y=SOURCE, e.g. v4.21=registry.redhat.io/redhat/redhat-operator-index:v4.21")
	}
	cats, err := ParseGiven(f.Catalogs, f.Platform)
	if err != nil {
		return "", nil, err
	}
	for _, m := range ends {
		if !slices.ContainsFunc(cats, func(pc Given) bool { return pc.Minor == m }) {
			return "", nil, fmt.Errorf("--catalogs: no catalog for %s (the minor of --from or --to): give %s=SOURCE", m.Key(), m.Key())
		}
	}
	return olm, cats, nil
}
