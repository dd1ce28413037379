package cli

// The CUDA executor runs schedules on the GPUs present (`memsched run
// --executor cuda`). It loads libcudart and libcublas at run time through
// purego, so the binary still builds with CGO_ENABLED=0 and the simulator
// runs anywhere; without a GPU the executor says so.
import (
	"github.com/memsched/memsched/harness/cudaexec"
	"github.com/memsched/memsched/harness/run"
	"github.com/memsched/memsched/harness/sim"
)

func init() {
	run.RegisterExecutor("cuda", run.GPUExecutor(func(cfg sim.Config, _ run.Job) (*sim.Stats, string, error) { return cudaexec.Run(cfg) }))
	run.RegisterProbe("cuda", cudaexec.Available)
}
