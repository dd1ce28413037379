// Package givenorder registers "given-order", a scheduler that runs a
// processing order written out by hand: the papers' toy examples (COLOC 2021
// Fig. 1, IPDPS 2022 Fig. 1, thesis Figs. 2.2 and 2.3) fix each PU's order
// themselves, and count its loads in the model of thesis §2.2 (the record's
// model_loads).
package givenorder

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memsched/memsched/schedulers"
)

func init() {
	schedulers.Register(schedulers.Spec{Name: "given-order", Version: 1,
		Doc:    "runs a listed order: one list of task ids per worker, in processing order; LRU or Belady eviction over the list",
		Params: params, New: build})
}

// options are given-order's parameters.
type options struct {
	Order  string
	Belady bool
}

var params, build = schedulers.Typed(func(a *schedulers.Args, o *options) {
	a.String(&o.Order, "order", "", nil, `task ids in processing order, workers separated by "|", e.g. "0 1 4 3 | 2 5 8 7 6"; empty: submission order on one worker`)
	a.Bool(&o.Belady, "belady", false, "Belady eviction over the listed order (thesis Theorem 1); false: LRU")
}, func(o options) (schedulers.Scheduler, error) {
	lists, err := Parse(o.Order)
	if err != nil {
		return nil, err
	}
	return &schedulers.Planned{Name: "given-order", Belady: o.Belady,
		Plan: func(v schedulers.View) ([][]int, error) { return plan(lists, v) }}, nil
})

// Parse reads an order: lists of task ids separated by "|", ids separated
// by spaces or commas. An empty order is nil (the submission order).
func Parse(s string) ([][]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var lists [][]int
	for i, part := range strings.Split(s, "|") {
		l := []int{}
		for _, f := range strings.FieldsFunc(part, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
			t, err := strconv.Atoi(f)
			if err != nil || t < 0 {
				return nil, fmt.Errorf("given-order: order list %d: %q is not a task id; write ids (0, 1, ...) separated by spaces, workers by |", i+1, f)
			}
			l = append(l, t)
		}
		lists = append(lists, l)
	}
	return lists, nil
}

// plan gives each worker its list (workers beyond the lists get none); the
// empty order is the submission order on worker 0. Planned checks that
// every task is listed exactly once.
func plan(lists [][]int, v schedulers.View) ([][]int, error) {
	k := v.Workers()
	if lists == nil {
		lists = [][]int{make([]int, len(v.Workload().Tasks))}
		for i := range lists[0] {
			lists[0][i] = i
		}
	}
	if len(lists) > k {
		return nil, fmt.Errorf("given-order: %d lists for %d workers; give at most one list per worker", len(lists), k)
	}
	out := make([][]int, k)
	copy(out, lists)
	return out, nil
}
