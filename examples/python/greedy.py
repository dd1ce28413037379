#!/usr/bin/env python3
"""A locality-aware greedy scheduler for memsched, in Python (standard library only).

It speaks memsched's external scheduler protocol (docs/protocol.md): one JSON
request per line on stdin, one JSON answer per line on stdout.

    memsched run --scheduler exec:examples/python/greedy.py --n 20 --gpus 2 --memory-mb 500

- pull: the worker gets the waiting task with the fewest input bytes missing
  from its memory (present = loaded or being loaded), ties to the earliest
  submitted: Ready's criterion (thesis Algorithm 2) applied to the whole queue
  when the task is handed out, not only to the worker's buffer.
- victim (eviction=luf): evict the candidate that the fewest waiting tasks
  read, ties to the least recently used: DARTS' Least Used in the Future with
  the shared queue as the future. eviction=lru keeps memsched's LRU.
- pop (ready=true): start the buffered task with the fewest missing bytes.

Each worker keeps a lazy heap of (missing bytes, task) that load_start and
evict events update for the tasks reading the data, so a pull costs a few
heap operations rather than a scan of the queue.
"""
import heapq
import json
import sys

DESCRIBE = {
    "doc": "locality-aware greedy (Python example): pull the waiting task with the fewest missing input bytes; LUF eviction",
    "buffer": 0,
    "handles": ["pop", "victim", "events"],
    "params": [
        {"name": "eviction", "kind": "string", "default": "luf", "choices": ["luf", "lru"],
         "doc": "luf: evict the data the fewest waiting tasks read; lru: least recently used"},
        {"name": "ready", "kind": "bool", "default": "true",
         "doc": "start the buffered task with the fewest missing bytes (else the oldest)"},
    ],
}


class Greedy:
    def __init__(self, init):
        w = init["workload"]
        self.size = [d["bytes"] for d in w["data"]]
        self.inputs = [t["inputs"] for t in w["tasks"]]
        self.users = [[] for _ in self.size]
        for t, ins in enumerate(self.inputs):
            for d in ins:
                self.users[d].append(t)
        workers = init["workers"]
        total = [sum(self.size[d] for d in ins) for ins in self.inputs]
        self.missing = [list(total) for _ in range(workers)]  # per worker, per task
        self.present = [set() for _ in range(workers)]
        self.heap = [[] for _ in range(workers)]
        self.waiting = set()
        self.future = [0] * len(self.size)  # waiting tasks reading each data
        self.luf = init["params"]["eviction"] == "luf"
        self.ready = init["params"]["ready"] == "true"

    def apply(self, events):
        for e in events:
            ev = e["ev"]
            if ev == "push":
                t = e["task"]
                self.waiting.add(t)
                for d in self.inputs[t]:
                    self.future[d] += 1
                for g, h in enumerate(self.heap):
                    heapq.heappush(h, (self.missing[g][t], t))
            elif ev == "load_start":
                self.change(e["worker"], e["data"], -1)
            elif ev == "evict":
                self.change(e["worker"], e["data"], +1)

    def change(self, g, d, sign):
        if sign < 0:
            self.present[g].add(d)
        else:
            self.present[g].discard(d)
        miss, h, size = self.missing[g], self.heap[g], self.size[d]
        for t in self.users[d]:
            miss[t] += sign * size
            if t in self.waiting:
                heapq.heappush(h, (miss[t], t))

    def pull(self, req):
        g = req["worker"]
        h, miss = self.heap[g], self.missing[g]
        while h:
            m, t = heapq.heappop(h)
            if t in self.waiting and miss[t] == m:
                self.waiting.discard(t)
                for d in self.inputs[t]:
                    self.future[d] -= 1
                return {"task": t}
        return {"task": None}

    def pop(self, req):
        if not self.ready:
            return {"index": 0}
        miss = self.missing[req["worker"]]
        buf = req["buffer"]
        return {"index": min(range(len(buf)), key=lambda i: (miss[buf[i]], i))}

    def victim(self, req):
        cand = req["candidates"]
        if not self.luf:
            return {"data": cand[0]}
        return {"data": min(cand, key=lambda d: self.future[d])}  # min keeps the first (LRU) on ties


def main():
    sched = None
    for line in sys.stdin:
        req = json.loads(line)
        op = req["op"]
        if op == "describe":
            answer = DESCRIBE
        elif op == "init":
            sched = Greedy(req)
            answer = {"ok": True}
        else:
            sched.apply(req["events"])
            answer = getattr(sched, op)(req)
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
