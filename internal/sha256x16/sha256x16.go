// Package sha256x16 computes the SHA-256 digests of many messages at once.
//
// A generation hashes tens of thousands of rendered files, and without
// SHA extensions one SHA-256 stream runs at under 200 MB/s per core. On
// CPUs with AVX-512 the compression function is run on sixteen messages
// at a time, one per 32-bit lane of the ZMM registers (the "multi-buffer"
// technique), which is several times faster per core. Messages are fed
// to the lanes longest first so that lanes run out of work at about the
// same time. On CPUs with the SHA extensions but not AVX-512, two
// messages are hashed at a time with them (block2: a second stream fills
// the SHA unit a single one leaves idle); elsewhere, or for a single
// message, crypto/sha256 is used.
package sha256x16

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"slices"
	"unsafe"
)

const lanes = 16

// Sum returns the SHA-256 digest of every message: the same values as
// sha256.Sum256 on each.
func Sum(msgs [][]byte) [][sha256.Size]byte {
	out := make([][sha256.Size]byte, len(msgs))
	if hasBlock16 && len(msgs) > 1 {
		sumLanes(out, msgs, block16)
		return out
	}
	if hasBlock2 && len(msgs) > 1 {
		sumPairs(out, msgs, block2)
		return out
	}
	for i, m := range msgs {
		out[i] = sha256.Sum256(m)
	}
	return out
}

// blockFunc is block16's signature.
type blockFunc func(state *[8][lanes]uint32, ptrs *[lanes]unsafe.Pointer, n int)

var iv = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// lane is one message in flight: its whole blocks, then one or two
// blocks holding the rest of the message and the padding.
type lane struct {
	msg    int // index into msgs; -1 when idle
	data   []byte
	tail   [2 * 64]byte
	tailN  int // tail blocks not yet compressed
	tailAt int // offset of the next tail block
}

// left is the number of blocks the lane can compress before its next
// segment starts.
func (l *lane) left() int {
	if len(l.data) > 0 {
		return len(l.data) / 64
	}
	return l.tailN
}

// next is the address of the lane's next block.
func (l *lane) next() unsafe.Pointer {
	if len(l.data) > 0 {
		return unsafe.Pointer(unsafe.SliceData(l.data))
	}
	return unsafe.Pointer(&l.tail[l.tailAt])
}

func (l *lane) advance(n int) {
	if len(l.data) > 0 {
		l.data = l.data[64*n:]
		return
	}
	l.tailN -= n
	l.tailAt += 64 * n
}

// start loads message i into the lane: whole blocks are read in place,
// the rest is copied into the tail with the padding (FIPS 180-4 §5.1.1).
func (l *lane) start(i int, m []byte) {
	whole := len(m) &^ 63
	rest := copy(l.tail[:], m[whole:])
	clear(l.tail[rest:])
	l.tail[rest] = 0x80
	l.tailN = 1
	if rest >= 56 {
		l.tailN = 2
	}
	binary.BigEndian.PutUint64(l.tail[64*l.tailN-8:], uint64(len(m))<<3)
	l.msg, l.data, l.tailAt = i, m[:whole], 0
}

// retireAt is the number of busy lanes at or under which, once no message
// is waiting, the remaining messages are finished one by one with
// crypto/sha256: a kernel call costs about as much as compressing a
// couple of blocks on one stream, so running it for one lane wastes time.
const retireAt = 1

// kernel is a multi-lane compression function together with its state,
// kept in whatever layout its assembly wants (block16: word-major, one
// ZMM register a word; block2: lane-major, a lane's H0..H7 together), so
// that one scheduler feeds them all.
type kernel interface {
	// width is the number of lanes.
	width() int
	// reset sets lane i's state to the initial hash value.
	reset(i int)
	// hash is lane i's state H0..H7.
	hash(i int) [8]uint32
	// point sets where lane i reads its next blocks.
	point(i int, p unsafe.Pointer)
	// run compresses n ≥ 1 blocks on every lane.
	run(n int)
}

// schedule computes out[i] = SHA-256(msgs[i]) with k: messages are fed
// longest first, each lane taking the next as soon as its own is done, so
// that lanes run out of work at about the same time; a lane with nothing
// left reads a busy lane's blocks and its result is thrown away.
func schedule(out [][sha256.Size]byte, msgs [][]byte, k kernel) {
	order := make([]int, len(msgs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(msgs[b]) - len(msgs[a]) })

	ls := make([]lane, k.width())
	for i := range ls {
		ls[i].msg = -1
	}
	queued := order
	for {
		busy := 0
		for i := range ls {
			l := &ls[i]
			if l.msg < 0 && len(queued) > 0 {
				l.start(queued[0], msgs[queued[0]])
				queued = queued[1:]
				k.reset(i)
			}
			if l.msg >= 0 {
				busy++
			}
		}
		if busy == 0 {
			return
		}
		if len(queued) == 0 && busy <= retireAt {
			// Lanes already in their tail have at most two blocks left
			// and stay.
			retired := 0
			for i := range ls {
				if l := &ls[i]; l.msg >= 0 && len(l.data) > 0 {
					m := msgs[l.msg]
					h := k.hash(i)
					out[l.msg] = finishH(&h, m, len(m)&^63-len(l.data))
					l.msg = -1
					retired++
				}
			}
			if retired == busy {
				return
			}
		}
		n, donor := int(^uint(0)>>1), 0
		for i := range ls {
			if l := &ls[i]; l.msg >= 0 && l.left() < n {
				n, donor = l.left(), i
			}
		}
		for i := range ls {
			// An idle lane reads the blocks of a busy one, which has at
			// least n of them.
			src := &ls[i]
			if src.msg < 0 {
				src = &ls[donor]
			}
			k.point(i, src.next())
		}
		k.run(n)
		for i := range ls {
			l := &ls[i]
			if l.msg < 0 {
				continue
			}
			l.advance(n)
			if len(l.data) == 0 && l.tailN == 0 {
				for j, w := range k.hash(i) {
					binary.BigEndian.PutUint32(out[l.msg][4*j:], w)
				}
				l.msg = -1
			}
		}
	}
}

// lanes16 is block16 (or its Go reference) as a kernel.
type lanes16 struct {
	block blockFunc
	state [8][lanes]uint32
	ptrs  [lanes]unsafe.Pointer
}

func (k *lanes16) width() int { return lanes }

func (k *lanes16) reset(i int) {
	for j := range k.state {
		k.state[j][i] = iv[j]
	}
}

func (k *lanes16) hash(i int) (h [8]uint32) {
	for j := range k.state {
		h[j] = k.state[j][i]
	}
	return h
}

func (k *lanes16) point(i int, p unsafe.Pointer) { k.ptrs[i] = p }

func (k *lanes16) run(n int) { k.block(&k.state, &k.ptrs, n) }

// sumLanes is schedule on sixteen lanes with block.
func sumLanes(out [][sha256.Size]byte, msgs [][]byte, block blockFunc) {
	schedule(out, msgs, &lanes16{block: block})
}

// finishH completes m with crypto/sha256 from the state h after done
// bytes (a whole number of blocks).
func finishH(h *[8]uint32, m []byte, done int) [sha256.Size]byte {
	var st [4 + 8*4 + 64 + 8]byte
	copy(st[:], "sha\x03")
	for j := range h {
		binary.BigEndian.PutUint32(st[4+4*j:], h[j])
	}
	binary.BigEndian.PutUint64(st[len(st)-8:], uint64(done))
	d := sha256.New()
	if err := d.(encoding.BinaryUnmarshaler).UnmarshalBinary(st[:]); err != nil {
		panic("sha256x16: crypto/sha256 rejected a hash state: " + err.Error())
	}
	d.Write(m[done:])
	var sum [sha256.Size]byte
	d.Sum(sum[:0])
	return sum
}
