package main

import (
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/release/mirror"
)

// loadV0Set reads every catalog of the set whole, as OLM v0 resolves
// dependencies over all of them (a dependency may be provided by any
// package), at cluster minor key ("" for sources without minors): the
// V0Set, and the members with package pkg for homeCatalog.
func loadV0Set(c *cli.Context, src *mirror.Source, file string, set *catalogset.Set, key, pkg string, log *slog.Logger) (*model.V0Set, []upgrade.SetMember, error) {
	var v0 []model.V0CatalogMember
	var members []upgrade.SetMember
	for i := range set.Catalogs {
		sc := &set.Catalogs[i]
		m := upgrade.SetMember{Name: sc.Name, Priority: sc.Priority}
		vm := model.V0CatalogMember{Name: sc.Name, Priority: sc.Priority}
		if source := sc.SourceAt(key); source != "" {
			a, err := setCatalogArg(file, sc, source, c.String("catalog-platform"))
			if err != nil {
				return nil, nil, err
			}
			cat, err := loadOperatorCatalog(c, src, a, nil, log)
			if err != nil {
				return nil, nil, err
			}
			m.Package, vm.Catalog = cat.Model.Package(pkg), cat.Model
		}
		members = append(members, m)
		v0 = append(v0, vm)
	}
	return model.NewV0Set(v0), members, nil
}
