#include "textflag.h"

// func ticks() int64
TEXT ·ticks(SB),NOSPLIT|NOFRAME,$0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func invariantTSC() bool: CPUID leaf 0x80000007, EDX bit 8, when the
// processor has that leaf.
TEXT ·invariantTSC(SB),NOSPLIT|NOFRAME,$0-1
	MOVL	$0x80000000, AX
	CPUID
	CMPL	AX, $0x80000007
	JB	none
	MOVL	$0x80000007, AX
	CPUID
	SHRL	$8, DX
	ANDL	$1, DX
	MOVB	DX, ret+0(FP)
	RET
none:
	MOVB	$0, ret+0(FP)
	RET
