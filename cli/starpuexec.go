package cli

// The StarPU executor runs a point on StarPU itself in SimGrid mode (`memsched
// run --executor starpu`, suites with executor = "starpu"): the authors'
// runtime as the reference for memsched's rules. memsched does not ship
// StarPU; MEMSCHED_STARPU and MEMSCHED_STARPU_PERFMODELS say where a build is.
import "github.com/memsched/memsched/harness/starpuexec"

func init() { starpuexec.Register() }
