package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// OnDevice runs fn on the calling goroutine, locked to its OS thread with
// dev current, then restores the thread's previous device. Every CUDA call
// in fn acts on dev. For long-lived per-device work prefer a Worker, which
// pays the thread switch once.
func (r *Runtime) OnDevice(dev int, fn func() error) error {
	runtime.LockOSThread() // nests with a caller's own lock
	defer runtime.UnlockOSThread()
	prev, err := r.GetDevice()
	if err != nil {
		return err
	}
	if err := r.SetDevice(dev); err != nil {
		return err
	}
	ferr := fn()
	if prev != dev {
		if err := r.SetDevice(prev); err != nil && ferr == nil {
			ferr = err
		}
	}
	return ferr
}

// ErrWorkerClosed is returned by Do after Close.
var ErrWorkerClosed = errors.New("cuda: worker closed")

// Worker owns one OS thread with one device current and runs closures on
// it in submission order: the executor's way of keeping CUDA's per-thread
// device state right while the rest of memsched stays ordinary Go.
type Worker struct {
	dev  int
	reqs chan func()
	done chan struct{}

	mu     sync.Mutex
	closed bool
}

// NewWorker starts a worker thread with dev current.
func (r *Runtime) NewWorker(dev int) (*Worker, error) {
	w := &Worker{dev: dev, reqs: make(chan func()), done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		defer close(w.done)
		// Never unlocked: the thread exits with the goroutine, so its CUDA
		// state is not handed to unrelated goroutines.
		runtime.LockOSThread()
		if err := r.SetDevice(dev); err != nil {
			started <- err
			return
		}
		started <- nil
		for fn := range w.reqs {
			fn()
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return w, nil
}

// Device is the worker's device.
func (w *Worker) Device() int { return w.dev }

// Do runs fn on the worker's thread and returns its error; a panic in fn is
// returned as an error rather than killing the worker. fn must not call Do
// on its own worker, which would deadlock.
func (w *Worker) Do(fn func() error) (err error) {
	errc := make(chan error, 1)
	call := func() {
		defer func() {
			if p := recover(); p != nil {
				errc <- fmt.Errorf("cuda: panic on device %d worker: %v", w.dev, p)
			}
		}()
		errc <- fn()
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrWorkerClosed
	}
	// Sending under mu keeps Close from closing reqs mid-send; the worker
	// never takes mu, so it cannot deadlock.
	w.reqs <- call
	w.mu.Unlock()
	return <-errc
}

// Close stops the worker after queued calls finish. It does not free CUDA
// resources created on it.
func (w *Worker) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.reqs)
	}
	w.mu.Unlock()
	<-w.done
}

// Thread makes the CUDA calls of several devices from one goroutine, locked
// to its OS thread, setting the current device only when it changes. A
// Worker hands every call to another thread and back: on an H100 in a VM
// that cost the executor's host loop 77 µs between a copy's end and the
// next copy's start (a copy of a 2D tile takes 276 µs).
type Thread struct {
	r   *Runtime
	cur int // the thread's current device; -1 until the first call
}

// LockThread locks the calling goroutine to its OS thread until Unlock; the
// goroutine then makes every call of the Thread.
func (r *Runtime) LockThread() *Thread {
	runtime.LockOSThread()
	return &Thread{r: r, cur: -1}
}

// Unlock releases the OS thread (its current device stays set).
func (t *Thread) Unlock() { runtime.UnlockOSThread() }

// Do runs fn with dev current. Only the goroutine that locked the Thread
// may call it.
func (t *Thread) Do(dev int, fn func() error) error {
	if t.cur != dev {
		if err := t.r.SetDevice(dev); err != nil {
			return err
		}
		t.cur = dev
	}
	return fn()
}
