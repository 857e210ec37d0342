package sha256x16

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"unsafe"
)

// pairFunc is block2's signature.
type pairFunc func(state *[2][8]uint32, p0, p1 unsafe.Pointer, n int)

// sumPairs is sumLanes for two lanes: messages are fed longest first,
// each lane taking the next as soon as its own is done, so both stay
// busy; the last message, once alone with whole blocks left, is finished
// by crypto/sha256 from its lane's state.
func sumPairs(out [][sha256.Size]byte, msgs [][]byte, block pairFunc) {
	order := make([]int, len(msgs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(msgs[b]) - len(msgs[a]) })
	var (
		ls    [2]lane
		state [2][8]uint32
		ptrs  [2]unsafe.Pointer
	)
	ls[0].msg, ls[1].msg = -1, -1
	queued := order
	for {
		busy := 0
		for i := range ls {
			l := &ls[i]
			if l.msg < 0 && len(queued) > 0 {
				l.start(queued[0], msgs[queued[0]])
				queued = queued[1:]
				state[i] = iv
			}
			if l.msg >= 0 {
				busy++
			}
		}
		if busy == 0 {
			return
		}
		if busy == 1 && len(queued) == 0 {
			for i := range ls {
				if l := &ls[i]; l.msg >= 0 && len(l.data) > 0 {
					m := msgs[l.msg]
					out[l.msg] = finishH(&state[i], m, len(m)&^63-len(l.data))
					return
				}
			}
			// The last message is in its padding: at most two blocks,
			// run as a pair with the idle lane reading the same ones.
		}
		n, donor := int(^uint(0)>>1), 0
		for i := range ls {
			if l := &ls[i]; l.msg >= 0 && l.left() < n {
				n, donor = l.left(), i
			}
		}
		for i := range ls {
			src := &ls[i]
			if src.msg < 0 {
				src = &ls[donor]
			}
			ptrs[i] = src.next()
		}
		block(&state, ptrs[0], ptrs[1], n)
		for i := range ls {
			l := &ls[i]
			if l.msg < 0 {
				continue
			}
			l.advance(n)
			if len(l.data) == 0 && l.tailN == 0 {
				for j, w := range state[i] {
					binary.BigEndian.PutUint32(out[l.msg][4*j:], w)
				}
				l.msg = -1
			}
		}
	}
}
