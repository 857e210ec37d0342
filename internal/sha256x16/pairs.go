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
	schedule(out, msgs, &lanes2{block: block}, nil)
}

// pairEqualFunc is block2eq's signature.
type pairEqualFunc func(state *[2][8]uint32, p0, p1, q0, q1 unsafe.Pointer, n int) (same0, same1 uint32)

// lanes2eq is block2eq (or its Go reference) as a comparing kernel.
type lanes2eq struct {
	lanes2
	block  pairEqualFunc
	q0, q1 unsafe.Pointer
	same0  uint32
	same1  uint32
}

func (k *lanes2eq) pointOld(i int, q unsafe.Pointer) {
	if i == 0 {
		k.q0 = q
	} else {
		k.q1 = q
	}
}

func (k *lanes2eq) run(n int) {
	k.same0, k.same1 = k.block(&k.state, k.p0, k.p1, k.q0, k.q1, n)
}

func (k *lanes2eq) same(i int) bool {
	if i == 0 {
		return k.same0 == 0xffff
	}
	return k.same1 == 0xffff
}

// sumPairsEqual is schedule on two lanes with block, comparing as cmp
// says.
func sumPairsEqual(out [][sha256.Size]byte, msgs [][]byte, block pairEqualFunc, cmp *comparison) {
	schedule(out, msgs, &lanes2eq{block: block}, cmp)
}
