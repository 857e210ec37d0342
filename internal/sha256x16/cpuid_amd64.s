#include "textflag.h"

// func maxLeaf() uint32
TEXT ·maxLeaf(SB), NOSPLIT, $0-4
	MOVL $0, AX
	MOVL $0, CX
	CPUID
	MOVL AX, ret+0(FP)
	RET

// func leaf7EBX() uint32
TEXT ·leaf7EBX(SB), NOSPLIT, $0-4
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	MOVL BX, ret+0(FP)
	RET
