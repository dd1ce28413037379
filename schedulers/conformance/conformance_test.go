package conformance_test

import (
	"os/exec"
	"testing"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/schedulers/conformance"
	_ "github.com/memsched/memsched/schedulers/intree"
)

// Every scheduler of the in-tree list keeps the contract.
func TestRegisteredSchedulers(t *testing.T) {
	for _, s := range schedulers.List() {
		t.Run(s.Name, func(t *testing.T) { conformance.Run(t, s) })
	}
}

// So does the external example, through the protocol.
func TestExecExample(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("SKIP: python3 is not on PATH; the Python example scheduler is not checked")
	}
	s, err := schedulers.Lookup("exec:../../examples/python/greedy.py")
	if err != nil {
		t.Fatal(err)
	}
	conformance.Run(t, s)
}
