package cli

// Schedulers register themselves when linked in; this list is the plugin set.
import (
	_ "github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/dartsdag"
	_ "github.com/memsched/memsched/schedulers/external" // exec:PATH, docs/protocol.md
	_ "github.com/memsched/memsched/schedulers/givenorder"
	_ "github.com/memsched/memsched/schedulers/heteroprio"
	_ "github.com/memsched/memsched/schedulers/multreeprio"
	_ "github.com/memsched/memsched/schedulers/static"
)
