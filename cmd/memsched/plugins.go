package main

// Schedulers register themselves when linked in; this list is the plugin set.
import (
	_ "memsched/schedulers/baseline"
	_ "memsched/schedulers/darts"
	_ "memsched/schedulers/static"
)
