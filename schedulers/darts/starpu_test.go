package darts

import (
	"fmt"
	"slices"
	"testing"

	"github.com/memsched/memsched/schedulers"
	"github.com/memsched/memsched/workloads"
)

// The rules of dynamic_data_aware.c at papers/ICPP2023 (version 3), one
// test each: every test fails with the rule's other value.

// TestPlanOrderPush: the tasks a chosen data frees enter the plan in its
// task_using_data_list order, the task pushed last first (push_front at
// push), whatever order the shuffle gave the pool; under plan_order=pool
// the shuffled pool order shows through.
func TestPlanOrderPush(t *testing.T) {
	decreasing := func(o Options) (ok bool, decisions int) {
		ok = true
		for seed := uint64(1); seed <= 10; seed++ {
			d := start(t, o, newFake(grid(6, 1), 1, seed))
			w := &d.w[0]
			for {
				if _, more := d.Pull(0); !more {
					break
				}
				if w.head == 1 && len(w.plan) > 1 { // a data just freed several tasks
					decisions++
					// In grid, task ids are the push order.
					ok = ok && slices.IsSortedFunc(w.plan, func(a, b int32) int { return int(b - a) })
				}
			}
		}
		return ok, decisions
	}
	if ok, n := decreasing(Options{}); !ok || n == 0 {
		t.Errorf("plan_order=push: plans not in decreasing push order (%d decisions looked at)", n)
	}
	if ok, _ := decreasing(Options{PlanOrder: "pool"}); ok {
		t.Error("plan_order=pool: every plan in decreasing push order: the shuffle does not show")
	}
}

// TestRefusedDecidesOneAhead: StarPU's pump pulls one task more than the
// GPU's FIFO takes (refused_fifo_list), so DARTS decides the next task when
// it hands out the current one. 3×3 grid, natural order (list A0 B0 B1 B2
// A1 A2), LRU: the first pull falls back to T(0,0), and the data of T(0,0)
// are requested. With refused, DARTS then already takes the next task: B1
// frees T(0,1) with A0 present. If A0 is evicted before the next pull, a
// DARTS deciding at that pull instead sees B0 only: A1 frees T(1,0).
func TestRefusedDecidesOneAhead(t *testing.T) {
	const a0 = 0
	for _, c := range []struct {
		refused bool
		want    int
	}{{true, 1}, {false, 3}} {
		d := start(t, Options{Order: "natural", Refused: c.refused}, newFake(grid(3, 1), 1, 1))
		if got, _ := d.Pull(0); got != 0 {
			t.Fatalf("refused=%v: first task %d, want T(0,0)", c.refused, got)
		}
		d.Observe(schedulers.Evicted, 0, a0)
		if got, _ := d.Pull(0); got != c.want {
			t.Errorf("refused=%v: second task %d, want %d", c.refused, got, c.want)
		}
	}
}

// TestTieBreakOneFromFree: with tasks of three inputs, X and Y each free
// one task and are read by two, but Y's other task misses only one more
// data (P present, Z1 not) where X's misses two: the tag's
// update_best_data_single_decision_tree ranks by the tasks one load from
// free before the remaining expected time and picks Y; task_left (October
// 2021) keeps the first in the list, X.
func TestTieBreakOneFromFree(t *testing.T) {
	const x, p, q, y, z1, z2 = 0, 1, 2, 3, 4, 5
	w := &workloads.Workload{Name: "tiebreak"}
	for i := range 6 {
		w.Data = append(w.Data, workloads.Data{ID: i, Bytes: 1})
	}
	for _, in := range [][]int{{x, p, q}, {y, p, q}, {x, z1, z2}, {y, p, z1}} {
		w.Tasks = append(w.Tasks, workloads.Task{ID: len(w.Tasks), Kernel: "gemm", Flops: 1e9, Inputs: in})
	}
	for _, c := range []struct {
		tiebreak string
		want     int
	}{{"one_from_free", 1}, {"task_left", 0}} {
		d := start(t, Options{Order: "natural", TieBreak: c.tiebreak}, newFake(w, 1, 1).setPresent(0, p, q))
		if got, _ := d.Pull(0); got != c.want {
			t.Errorf("tiebreak=%s: first task %d, want %d", c.tiebreak, got, c.want)
		}
	}
}

// TestWithdrawFirst: LUF's victim selector withdraws only the first
// planned task reading the victim (pushing it to main_task_list's tail sets
// its next to NULL, which ends the loop). 4×4 grid, natural order: after
// the pulls 0, 1, 5, 4, 6, 2, 10, A2 has freed T(2,2), T(2,1), T(2,0) and
// T(2,1), T(2,0) are still planned; evicting A2 withdraws T(2,1) alone, or
// both under withdraw=all.
func TestWithdrawFirst(t *testing.T) {
	const a2 = 2
	for _, c := range []struct {
		withdraw string
		left     int
	}{{"first", 1}, {"all", 0}} {
		d := start(t, Options{LUF: true, Order: "natural", Reinsert: "place", Withdraw: c.withdraw}, newFake(grid(4, 1), 1, 1))
		for _, want := range []int{0, 1, 5, 4, 6, 2, 10} {
			if got, _ := d.Pull(0); got != want {
				t.Fatalf("withdraw=%s: pulled %d, want %d", c.withdraw, got, want)
			}
		}
		d.Observe(schedulers.Evicted, 0, a2)
		if d.w[0].live != c.left {
			t.Errorf("withdraw=%s: %d planned tasks left, want %d", c.withdraw, d.w[0].live, c.left)
		}
	}
}

// TestRelistOnlyWhileRead: an evicted data returns to the GPU's list only
// while pool tasks read it (!task_using_data_list_empty). 3×3 grid,
// natural order: once T(0,0), T(0,1), T(0,2) are pulled no pool task reads
// A0, and evicting it leaves the list as it is (relist=read), or puts A0
// back (always).
func TestRelistOnlyWhileRead(t *testing.T) {
	const a0 = 0
	for _, c := range []struct {
		relist string
		want   []int32
	}{{"read", []int32{2}}, {"always", []int32{0, 2}}} {
		d := start(t, Options{LUF: true, Order: "natural", Reinsert: "place", Relist: c.relist}, newFake(grid(3, 1), 1, 1))
		for _, want := range []int{0, 1, 4, 3, 5, 2} {
			if got, _ := d.Pull(0); got != want {
				t.Fatalf("relist=%s: pulled %d, want %d", c.relist, got, want)
			}
		}
		d.Observe(schedulers.Evicted, 0, a0)
		if got := d.w[0].list.entries(nil); !slices.Equal(got, c.want) {
			t.Errorf("relist=%s: list %v, want %v", c.relist, got, c.want)
		}
	}
}

// xgemm2D is the 2D product as StarPU's examples/mult/xgemm.c submits it:
// task x·n+y reads (A_y, B_x), x outer, and the data are numbered in the
// order the tasks first read them (A_0, B_0, A_1..A_{n-1}, B_1..B_{n-1}),
// as StarPU's DARTS first lists them.
func xgemm2D(n int) *workloads.Workload {
	w := &workloads.Workload{Name: fmt.Sprintf("xgemm2d-n%d", n)}
	for i := range 2 * n {
		w.Data = append(w.Data, workloads.Data{ID: i, Bytes: 1})
	}
	a := func(y int) int { // A_0 = 0, A_y = y+1
		if y == 0 {
			return 0
		}
		return y + 1
	}
	b := func(x int) int { // B_0 = 1, B_x = n+x
		if x == 0 {
			return 1
		}
		return n + x
	}
	for x := range n {
		for y := range n {
			w.Tasks = append(w.Tasks, workloads.Task{ID: len(w.Tasks), Kernel: "gemm", Flops: 1e9, Inputs: []int{a(y), b(x)}})
		}
	}
	return w
}

// TestGlibcOrdersMatchStarPU: with rng=glibc DARTS shuffles as a StarPU
// run of sgemm -xy 19200 -nblocks 20 (SEED unset) does: xgemm.c draws one
// random() per task, then randomize_new_task_list and
// randomize_full_data_not_used_yet draw from rand(). The orders below are
// the main_task_list and gpu_data_not_used list that run printed (traced
// in dynamic_data_aware_pull_task), the list after the first decision took
// the inputs of the pool's head T71 (data 12 and 23) out.
func TestGlibcOrdersMatchStarPU(t *testing.T) {
	pool := []int32{71, 89, 63, 175, 69, 196, 181, 24, 158, 242, 366, 277, 290, 139, 103, 95, 80, 359, 123, 309}
	list := []int32{32, 24, 36, 9, 38, 3, 37, 33, 21, 35, 18, 17, 19, 25, 8, 11, 22, 10, 39, 27, 13, 34, 20, 6, 28, 14, 1, 15, 0, 2, 16, 5, 29, 30, 4, 26, 7, 31}
	d := start(t, Options{RNG: "glibc", AppDraws: 1}, newFake(xgemm2D(20), 1, 1))
	if got, _ := d.Pull(0); got != 71 {
		t.Fatalf("first task %d, want StarPU's pool head T71", got)
	}
	var gotPool []int32
	for _, task := range d.slots {
		if task >= 0 && len(gotPool) < len(pool)-1 {
			gotPool = append(gotPool, task)
		}
	}
	if !slices.Equal(gotPool, pool[1:]) {
		t.Errorf("pool %v, want StarPU's %v", gotPool, pool[1:])
	}
	if got := d.w[0].list.entries(nil); !slices.Equal(got, list) {
		t.Errorf("data list %v, want StarPU's %v", got, list)
	}
	// The run's generator gives other orders.
	d = start(t, Options{}, newFake(xgemm2D(20), 1, 1))
	if got, _ := d.Pull(0); got == 71 {
		t.Error("rng=run: first task T71 as well")
	}
}
