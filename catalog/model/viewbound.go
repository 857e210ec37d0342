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
	if c := v.OLMV1.Candidates; len(c) > FileListMax {
		v.OLMV1.CandidatesTotal = len(c)
		v.OLMV1.Candidates = c[:FileListMax:FileListMax]
	}
}
