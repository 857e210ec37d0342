package views

import "github.com/upgraph/upgraph/catalog/model"

// v0Set is the catalog set as OLM v0 resolves dependencies over it: this
// catalog and its peers, each with its priority (nil without peers: a
// tree without --catalog-set keeps its graph-only OLM v0 answers).
func (c *Catalog) v0Set() *model.V0Set {
	if len(c.Peers) == 0 {
		return nil
	}
	members := []model.V0CatalogMember{{Name: c.Name, Priority: c.Priority, Catalog: c.Model}}
	for _, p := range c.Peers {
		members = append(members, model.V0CatalogMember{Name: p.Name, Priority: p.Priority, Catalog: p.Model})
	}
	return model.NewV0Set(members)
}
