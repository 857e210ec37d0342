package model

// FileListMax is the most hops of OLM v0's pathToHead and the most OLM
// v1 candidates a written next/ file lists (Bounded). Without a bound a
// channel of n bundles gave n²/2 hops or candidates over its n files
// (issue 24: 55 MB of next/ files from a 1,000-bundle replaces chain).
// 16 keeps a file to a few KB (a hop is 100 to 200 bytes) while a
// reader rebuilds a path of n hops from ⌈n/16⌉ files: on the shared
// catalog 235 of 873 files are cut, the longest path (79 hops) takes 5
// files, and 11 candidate lists are cut (the longest has 23).
const FileListMax = 16

// Bounded cuts the view to what a next/ file lists, so that a channel's
// files grow linearly in its entries (docs/operators.md, "Size of the
// output"); every answer stays derivable from the files:
//
//   - OLMV0.PathToHead keeps at most FileListMax hops; when it is cut,
//     PathToHeadTotal is the whole path's number of hops and the path
//     continues with the next/ file of the last listed hop in the same
//     channel: OLM v0's path from a bundle depends only on that bundle
//     (ResolveV0 follows the installed name and version one resolution
//     at a time), so the path from a hop is the rest of the path, hop
//     for hop, up to PathToHeadTotal (when the path ends in a loop the
//     continuation may list more: a reader takes PathToHeadTotal hops).
//     The cut is at a hop with a bundle (an entry without one has no
//     path of its own); with none among the first FileListMax hops the
//     path is listed whole (only in a catalog with the error "no
//     olm.bundle blobs found"). Next, ReachesHead, Stranded and Error
//     stay the whole path's.
//   - with dependencies (a catalog set), each hop's providers and
//     passed-over candidates, and held's, keep their first FileListMax
//     (providersTotal, passedOverTotal their number when cut): a path
//     whose every hop installed a long chain of providers would
//     otherwise repeat the chain in every file.
//   - OLMV1.Candidates keeps its first FileListMax entries (the pick
//     first, in OLM v1's order); when it is cut, CandidatesTotal is
//     their number. Pick and Refusal are unchanged.
//
// ch is the view's channel (to find the hops' entries).
func (v *InstalledView) Bounded(ch *Channel) {
	if p := v.OLMV0.PathToHead; len(p) > FileListMax {
		for k := FileListMax; k > 0; k-- {
			if e := ch.entryByName[p[k-1].Name]; e != nil && e.Bundle != nil && p[k-1].Channel == ch.Name {
				v.OLMV0.PathToHeadTotal = len(p)
				v.OLMV0.PathToHead = p[:k:k]
				break
			}
		}
	}
	v.OLMV0.boundDependencies()
	if c := v.OLMV1.Candidates; len(c) > FileListMax {
		v.OLMV1.CandidatesTotal = len(c)
		v.OLMV1.Candidates = c[:FileListMax:FileListMax]
	}
}

// boundDependencies cuts the hops' providers and passed-over candidates
// (and held's) to FileListMax, recording their number when cut.
func (r *V0Result) boundDependencies() {
	cut := func(h *Hop) {
		if n := len(h.Providers); n > FileListMax {
			h.ProvidersTotal, h.Providers = n, h.Providers[:FileListMax:FileListMax]
		}
		if n := len(h.PassedOver); n > FileListMax {
			h.PassedOverTotal, h.PassedOver = n, h.PassedOver[:FileListMax:FileListMax]
		}
	}
	if r.Next != nil {
		cut(r.Next)
	}
	for i := range r.PathToHead {
		cut(&r.PathToHead[i])
	}
	if h := r.Held; h != nil && len(h.PassedOver) > FileListMax {
		h.PassedOverTotal, h.PassedOver = len(h.PassedOver), h.PassedOver[:FileListMax:FileListMax]
	}
}
