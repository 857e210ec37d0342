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
	"bytes"
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

// SumEqual is Sum, and compares each message with the bytes old gives
// for it, in the same pass over the message where the CPU has the SHA
// extensions but not AVX-512 (block2eq), else with bytes.Equal: old(i)
// is called once, when message i is about to be hashed, and returns the
// bytes to compare it with (ok false: none); done(i, equal) is called
// once message i is hashed and compared, after which the bytes old(i)
// returned are not read any more. Messages are started longest first and
// at most two are in flight at a time, so the caller needs only a couple
// of buffers for what old returns however many messages there are.
func SumEqual(msgs [][]byte, old func(i int) ([]byte, bool), done func(i int, equal bool)) [][sha256.Size]byte {
	if hasBlock16 || !hasBlock2 || len(msgs) < 2 {
		for i, m := range msgs {
			o, ok := old(i)
			done(i, ok && bytes.Equal(o, m))
		}
		return Sum(msgs)
	}
	out := make([][sha256.Size]byte, len(msgs))
	sumPairsEqual(out, msgs, block2eq, &comparison{old: old, done: done})
	return out
}

// comparison is what schedule compares the messages with (SumEqual).
type comparison struct {
	old  func(i int) ([]byte, bool)
	done func(i int, equal bool)
}

// comparer is a kernel that also compares each lane's blocks with other
// bytes (lanes2eq).
type comparer interface {
	kernel
	// pointOld sets where lane i reads the bytes its next blocks are
	// compared with.
	pointOld(i int, q unsafe.Pointer)
	// same is whether lane i's blocks equalled them in the last run.
	same(i int) bool
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
	// With a comparison: cmp whether the message is compared, old the
	// bytes its whole blocks left (data) are compared with, and eq
	// whether all it compared so far were equal.
	cmp, eq bool
	old     []byte
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

// nextOld is where the bytes the lane's next blocks are compared with
// start: its own blocks (equal to themselves) when it compares none.
func (l *lane) nextOld() unsafe.Pointer {
	if l.cmp && len(l.data) > 0 {
		return unsafe.Pointer(unsafe.SliceData(l.old))
	}
	return l.next()
}

func (l *lane) advance(n int) {
	if len(l.data) > 0 {
		l.data = l.data[64*n:]
		if l.cmp {
			l.old = l.old[64*n:]
		}
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
	l.cmp, l.eq, l.old = false, false, nil
}

// compareWith makes the lane compare its message m with o: the bytes
// past the whole blocks (copied into the tail) are compared now, the
// whole blocks as they are hashed.
func (l *lane) compareWith(m, o []byte) {
	if len(o) != len(m) {
		return
	}
	whole := len(m) &^ 63
	l.cmp, l.eq, l.old = true, bytes.Equal(o[whole:], m[whole:]), o[:whole]
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
//
// With cmp, k is a comparer and each message is also compared with the
// bytes cmp.old gives for it (SumEqual).
func schedule(out [][sha256.Size]byte, msgs [][]byte, k kernel, cmp *comparison) {
	ck, _ := k.(comparer)
	if cmp != nil && ck == nil {
		panic("sha256x16: a comparison needs a comparing kernel")
	}
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
				if cmp != nil {
					if o, ok := cmp.old(queued[0]); ok {
						l.compareWith(msgs[queued[0]], o)
					}
				}
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
					if cmp != nil {
						cmp.done(l.msg, l.cmp && l.eq && bytes.Equal(l.data, l.old))
					}
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
			if cmp != nil {
				ck.pointOld(i, src.nextOld())
			}
		}
		k.run(n)
		for i := range ls {
			l := &ls[i]
			if l.msg < 0 {
				continue
			}
			if l.cmp {
				l.eq = l.eq && ck.same(i)
			}
			l.advance(n)
			if len(l.data) == 0 && l.tailN == 0 {
				for j, w := range k.hash(i) {
					binary.BigEndian.PutUint32(out[l.msg][4*j:], w)
				}
				if cmp != nil {
					cmp.done(l.msg, l.cmp && l.eq)
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
	schedule(out, msgs, &lanes16{block: block}, nil)
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
