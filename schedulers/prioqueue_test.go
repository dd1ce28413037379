package schedulers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// withPushLimits runs test with the default push numbers and with limits
// that make the queues renumber their items every few pushes, or at every
// push (a limit below the number queued).
func withPushLimits(t *testing.T, limits []uint32, test func(t *testing.T)) {
	for _, limit := range limits {
		t.Run(fmt.Sprint("maxPush=", limit), func(t *testing.T) {
			old := maxPush
			maxPush = limit
			t.Cleanup(func() { maxPush = old })
			test(t)
		})
	}
}

// The queue pops what a scan of the queued tasks picks, whichever of its
// heaps a sequence of operations builds, and whenever: the tail and back
// heaps start at their first pop, after pushes, removals and compactions.
func TestPrioQueueMatchesScan(t *testing.T) {
	withPushLimits(t, []uint32{math.MaxUint32, 400}, testPrioQueueMatchesScan)
}

func testPrioQueueMatchesScan(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		const n = 300 // few tasks, many operations: the heaps fill with removed ones and compact
		prio := make([]float64, n)
		for i := range prio {
			prio[i] = float64(r.IntN(5)) // many equal priorities: the order among equals matters
		}
		q := NewPrioQueue(prio)
		pushed := map[int]int{} // queued task → its push order
		order := 0
		pick := func(better func(a, b int) bool) int {
			best := -1
			for t := range pushed {
				if best < 0 || better(t, best) {
					best = t
				}
			}
			return best
		}
		head := func(a, b int) bool { return prio[a] > prio[b] || prio[a] == prio[b] && pushed[a] < pushed[b] }
		tail := func(a, b int) bool { return prio[a] < prio[b] || prio[a] == prio[b] && pushed[a] > pushed[b] }
		back := func(a, b int) bool { return prio[a] > prio[b] || prio[a] == prio[b] && pushed[a] > pushed[b] }
		tailFrom, backFrom := r.IntN(20000), r.IntN(20000) // operations before the first such pop
		for op := range 40000 {
			switch k := r.IntN(10); {
			case k < 5:
				task := r.IntN(n)
				if _, ok := pushed[task]; !ok {
					order++
					pushed[task] = order
					q.Push(task)
				}
			case k < 7:
				task := r.IntN(n)
				_, want := pushed[task]
				if q.Remove(task) != want {
					t.Fatalf("seed %d op %d: Remove(%d) disagrees with the queue's contents", seed, op, task)
				}
				delete(pushed, task)
			default:
				var got int
				var ok bool
				var want int
				switch {
				case k == 7 && op >= tailFrom:
					want = pick(tail)
					got, ok = q.PopTail()
				case k == 8 && op >= backFrom:
					want = pick(back)
					got, ok = q.PopBackHighest()
				default:
					want = pick(head)
					got, ok = q.PopHead()
				}
				if !ok {
					got = -1
				}
				if got != want {
					t.Fatalf("seed %d op %d (kind %d): popped %d, the scan %d", seed, op, k, got, want)
				}
				delete(pushed, want)
			}
			if q.Len() != len(pushed) {
				t.Fatalf("seed %d op %d: Len %d, %d queued", seed, op, q.Len(), len(pushed))
			}
		}
	}
}

// Queues that share their table of pushes (LWS's) each pop what a scan of
// their own tasks picks, while tasks move between them as stealing moves
// them: popped from one queue's tail, pushed on another's.
func TestPrioQueuesShareOneTable(t *testing.T) {
	withPushLimits(t, []uint32{math.MaxUint32, 250, 1}, testPrioQueuesShareOneTable)
}

func testPrioQueuesShareOneTable(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		const n, k = 200, 3
		prio := make([]float64, n)
		for i := range prio {
			prio[i] = float64(r.IntN(4))
		}
		qs := NewPrioQueues(prio, k)
		pushed := make([]map[int]int, k) // per queue: queued task → push order
		for i := range pushed {
			pushed[i] = map[int]int{}
		}
		queued, order := map[int]bool{}, 0
		push := func(i, task int) {
			order++
			pushed[i][task] = order
			queued[task] = true
			qs[i].Push(task)
		}
		pick := func(i int, head bool) int {
			best := -1
			for x, o := range pushed[i] {
				if best < 0 {
					best = x
					continue
				}
				ob := pushed[i][best]
				if head && (prio[x] > prio[best] || prio[x] == prio[best] && o < ob) ||
					!head && (prio[x] < prio[best] || prio[x] == prio[best] && o > ob) {
					best = x
				}
			}
			return best
		}
		for op := range 20000 {
			i := r.IntN(k)
			switch c := r.IntN(3); c {
			case 0:
				if task := r.IntN(n); !queued[task] {
					push(i, task)
				}
			default:
				head := c == 1
				want := pick(i, head)
				var got int
				var ok bool
				if head {
					got, ok = qs[i].PopHead()
				} else {
					got, ok = qs[i].PopTail()
				}
				if !ok {
					got = -1
				}
				if got != want {
					t.Fatalf("seed %d op %d: queue %d popped %d, the scan %d", seed, op, i, got, want)
				}
				if ok {
					delete(pushed[i], got)
					delete(queued, got)
					if !head { // stolen: it joins another queue
						push((i+1+r.IntN(k-1))%k, got)
					}
				}
			}
			for j := range k {
				if qs[j].Len() != len(pushed[j]) {
					t.Fatalf("seed %d op %d: queue %d holds %d, want %d", seed, op, j, qs[j].Len(), len(pushed[j]))
				}
			}
		}
	}
}
