package intree_test

import (
	"testing"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/intree"
)

func TestTheListRegistersEveryScheduler(t *testing.T) {
	var names []string
	for _, s := range schedulers.List() {
		names = append(names, s.Name)
	}
	if len(names) != intree.Count {
		t.Fatalf("%d schedulers registered (%v); intree.Count says %d: update it with the list", len(names), names, intree.Count)
	}
}
