package site

import (
	"context"
	"log/slog"

	"github.com/upgraph/upgraph/tree"
)

// ServeCopy has h serve the tree at location, not followed, from a private
// copy, verified file by file against index.json: the directory tree.Open
// extracts a bundle or an image into, or tree.Extract's copy of a tree
// read file by file (http). stop closes the generation and removes the
// copy.
func ServeCopy(ctx context.Context, h *Handler, location string, opts tree.Options, log *slog.Logger) (stop func(), err error) {
	t, err := tree.Open(ctx, location, opts)
	if err != nil {
		return nil, err
	}
	local, ok := t.(tree.Local)
	if !ok {
		local, err = tree.Extract(ctx, t, "")
		t.Close()
		if err != nil {
			return nil, err
		}
	}
	g, err := Load(local.Dir(), log)
	if err != nil {
		local.Close()
		return nil, err
	}
	if err := h.Offer(g); err != nil { // the first: only --trust refuses it
		local.Close()
		return nil, err
	}
	log.Info("serving a copy", "from", location, "dir", local.Dir(), "id", g.ID, "graphs", len(g.Manifest.Graphs), "generatedAt", g.Manifest.GeneratedAt)
	return func() {
		g.Close()
		if err := local.Close(); err != nil {
			log.Warn("removing the private copy", "dir", local.Dir(), "err", err)
		}
	}, nil
}
