package main

// Schedulers register themselves when linked in; this list is the plugin set.
import (
	_ "github.com/memsched/memsched/schedulers/baseline"
	_ "github.com/memsched/memsched/schedulers/darts"
	_ "github.com/memsched/memsched/schedulers/dartsdag"
	_ "github.com/memsched/memsched/schedulers/static"
)
