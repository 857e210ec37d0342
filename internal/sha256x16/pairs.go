package sha256x16

import (
	"crypto/sha256"
	"unsafe"
)

// pairFunc is block2's signature.
type pairFunc func(state *[2][8]uint32, p0, p1 unsafe.Pointer, n int)

// lanes2 is block2 (or its Go reference) as a kernel: with two lanes the
// last message, once alone with whole blocks left, is finished by
// crypto/sha256 (retireAt), and one in its padding runs as a pair with
// the idle lane reading the same blocks.
type lanes2 struct {
	block  pairFunc
	state  [2][8]uint32
	p0, p1 unsafe.Pointer
}

func (k *lanes2) width() int { return 2 }

func (k *lanes2) reset(i int) { k.state[i] = iv }

func (k *lanes2) hash(i int) [8]uint32 { return k.state[i] }

func (k *lanes2) point(i int, p unsafe.Pointer) {
	if i == 0 {
		k.p0 = p
	} else {
		k.p1 = p
	}
}

func (k *lanes2) run(n int) { k.block(&k.state, k.p0, k.p1, n) }

// sumPairs is schedule on two lanes with block.
func sumPairs(out [][sha256.Size]byte, msgs [][]byte, block pairFunc) {
	schedule(out, msgs, &lanes2{block: block})
}
