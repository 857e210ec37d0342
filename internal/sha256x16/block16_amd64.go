package sha256x16

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate sh -c "go run gen_amd64.go > block16_amd64.s"

// hasBlock16 is whether block16 may run: it needs AVX-512 F (and BW for
// the byte swap), and an OS that saves the ZMM registers, which
// x/sys/cpu checks.
var hasBlock16 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW

// block16 runs the SHA-256 compression function n ≥ 1 times on each of 16
// lanes: lane i reads n consecutive 64-byte blocks from ptrs[i] and
// updates word j of its state in state[j][i].
//
//go:noescape
func block16(state *[8][lanes]uint32, ptrs *[lanes]unsafe.Pointer, n int)
