package sha256x16

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate sh -c "go run gen_ni2_amd64.go > block2_amd64.s"

// hasBlock2 is whether block2 may run: it needs the SHA extensions
// (CPUID leaf 7, EBX bit 29, which x/sys/cpu does not report on x86) and
// SSE4.1 and SSSE3 for the shuffles.
var hasBlock2 = cpu.X86.HasSSE41 && cpu.X86.HasSSSE3 && hasSHA()

// block2 runs the SHA-256 compression function n ≥ 1 times on each of
// two lanes with the SHA extensions: lane i reads n consecutive 64-byte
// blocks from pi and updates its state state[i] (H0..H7).
//
//go:noescape
func block2(state *[2][8]uint32, p0, p1 unsafe.Pointer, n int)

// block2eq is block2 comparing each lane's blocks with as many bytes
// from qi as it hashes: samei is the AND of the 16-byte compares' byte
// masks, 0xffff when lane i's n blocks equal qi's.
//
//go:noescape
func block2eq(state *[2][8]uint32, p0, p1, q0, q1 unsafe.Pointer, n int) (same0, same1 uint32)

// hasSHA is whether the CPU has the SHA extensions: leaf 0's EAX is the
// highest standard leaf, leaf 7 subleaf 0's EBX the structured extended
// features.
func hasSHA() bool {
	if maxLeaf, _, _, _ := cpuid(0, 0); maxLeaf < 7 {
		return false
	}
	_, ebx, _, _ := cpuid(7, 0)
	return ebx&(1<<29) != 0
}

// cpuid is the CPUID instruction.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
