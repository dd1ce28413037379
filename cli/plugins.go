package cli

// The schedulers linked into memsched: the one explicit list.
import _ "github.com/memsched/memsched/schedulers/intree"
