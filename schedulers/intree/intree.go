// Package intree is the one explicit list of memsched's own schedulers, as
// Kubernetes' scheduler keeps its in-tree plugins in NewInTreeRegistry:
// importing it links every one of them in (each package registers its
// Specs), and the command line, the conformance test, the golden corpus
// and the benchmarks import it rather than a hand-kept subset. A new
// scheduler package is added here, once.
package intree

import (
	_ "github.com/memsched/memsched/schedulers/baseline"    // eager, dmda, dmdar, dmdas, lws, ap
	_ "github.com/memsched/memsched/schedulers/darts"       // darts
	_ "github.com/memsched/memsched/schedulers/dartsdag"    // darts-dag
	_ "github.com/memsched/memsched/schedulers/external"    // exec:PATH (docs/protocol.md)
	_ "github.com/memsched/memsched/schedulers/givenorder"  // given-order
	_ "github.com/memsched/memsched/schedulers/heteroprio"  // heteroprio, laheteroprio
	_ "github.com/memsched/memsched/schedulers/multreeprio" // multreeprio, multreeprio+cp, critical-path
	_ "github.com/memsched/memsched/schedulers/static"      // mst, rcm, cm, hfp, mhfp, hmetis+r
)

// Count is the number of schedulers the list registers (exec:PATH, a
// family, aside): the test of this package checks it against the registry,
// so that a package registering a new scheduler is noticed here.
const Count = 20
