package schedulers

import (
	"github.com/memsched/memsched/hardware"
	"github.com/memsched/memsched/workloads"
)

// KernelTimes answers Platform.KernelSeconds for the tasks run on one
// worker kind, remembering the answers per kernel and flops: the tasks of
// a tiled graph have a few distinct pairs, so most tasks cost a comparison
// or two instead of a lookup by kernel name.
type KernelTimes struct {
	p    *hardware.Platform
	kind string
	memo []kernelTime
}

type kernelTime struct {
	kernel string
	flops  float64
	secs   float64
	ok     bool
	err    error
}

// kernelMemo bounds the pairs remembered (a linear search).
const kernelMemo = 16

// NewKernelTimes answers for workers of the given kind on p.
func NewKernelTimes(p *hardware.Platform, kind string) *KernelTimes {
	return &KernelTimes{p: p, kind: kind}
}

// Seconds is p.KernelSeconds(t.Kernel, kind, t.Flops).
func (k *KernelTimes) Seconds(t *workloads.Task) (secs float64, ok bool, err error) {
	for i := range k.memo {
		if m := &k.memo[i]; m.flops == t.Flops && m.kernel == t.Kernel {
			return m.secs, m.ok, m.err
		}
	}
	secs, ok, err = k.p.KernelSeconds(t.Kernel, k.kind, t.Flops)
	if len(k.memo) < kernelMemo {
		k.memo = append(k.memo, kernelTime{t.Kernel, t.Flops, secs, ok, err})
	}
	return secs, ok, err
}
