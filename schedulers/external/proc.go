package external

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a running program: requests go to its stdin, answers come from
// its stdout, each within a deadline; its stderr keeps its last lines for
// error messages.
type proc struct {
	name     string // exec:PATH, for errors
	cmd      *exec.Cmd
	in, out  *os.File // our ends of its stdin and stdout (pipes, so they take deadlines)
	w        *bufio.Writer
	r        *bufio.Reader
	long     []byte // an answer longer than r's buffer
	stderr   *tail
	timeout  time.Duration
	exited   chan struct{} // closed once the process is reaped
	closed   bool
	requests int // answered so far
}

// MaxAnswer bounds an answer line, its newline included: a program writing
// without end fails instead of filling memory.
const MaxAnswer = 1 << 20

// grace is how long a program may take to exit after its stdin closes.
const grace = 2 * time.Second

func start(name, path string, timeout time.Duration) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &proc{name: name, in: inW, out: outR, stderr: &tail{max: 4096}, timeout: timeout, exited: make(chan struct{})}
	p.cmd = exec.Command(path)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	// A child that keeps stderr open after the program exits must not
	// hold up the reaping.
	p.cmd.WaitDelay = time.Second
	err = p.cmd.Start()
	inR.Close() // the child has its copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("%s: cannot start it: %v", name, err)
	}
	go func() {
		p.cmd.Wait() // its status is read from ProcessState
		close(p.exited)
	}()
	p.w = bufio.NewWriterSize(inW, 1<<16)
	p.r = bufio.NewReaderSize(outR, 1<<16)
	return p, nil
}

// call sends one request (a line ending in '\n') and returns the answer
// line. Any failure ends the process and comes back as a full error.
func (p *proc) call(req []byte, op string) ([]byte, error) {
	if p.closed {
		return nil, fmt.Errorf("%s: %s after the program was stopped", p.name, op)
	}
	// Exactly one answer per request: a line already waiting answers no
	// request (a second answer to the previous one), and would be taken
	// as the answer to this one.
	if n := p.r.Buffered(); n > 0 {
		extra, _ := p.r.Peek(min(n, 200))
		return nil, p.fail("%s: before this request, the program wrote %s, which answers no request (two answers to one request? docs/protocol.md: exactly one answer line per request)", op, quote(extra))
	}
	deadline := time.Now().Add(p.timeout)
	p.in.SetWriteDeadline(deadline)
	p.out.SetReadDeadline(deadline)
	if _, err := p.w.Write(req); err != nil {
		return nil, p.ioFail(op, err, "while memsched sent the request")
	}
	if err := p.w.Flush(); err != nil {
		return nil, p.ioFail(op, err, "while memsched sent the request")
	}
	line, err := p.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		p.long = append(p.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(p.long) >= MaxAnswer {
				return nil, p.fail("%s: the answer is longer than %d bytes without a newline (docs/protocol.md: one JSON object per line, at most 1 MiB); it starts %s", op, MaxAnswer, quote(p.long))
			}
			line, err = p.r.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
		if err == nil && len(line) > MaxAnswer {
			return nil, p.fail("%s: the answer is %d bytes long, more than %d (docs/protocol.md: at most 1 MiB); it starts %s", op, len(line), MaxAnswer, quote(line))
		}
	}
	if err != nil {
		return nil, p.ioFail(op, err, "without answering")
	}
	p.requests++
	return line, nil
}

func (p *proc) ioFail(op string, err error, when string) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return p.fail("no answer to %s within %s (the timeout parameter sets the limit)", op, p.timeout)
	}
	// A closed pipe means the program exited (or closed its end): say how.
	select {
	case <-p.exited:
	case <-time.After(grace):
	}
	status := "closed its stdout"
	select {
	case <-p.exited:
		status = "exited"
		if p.cmd.ProcessState != nil {
			status = fmt.Sprintf("exited (%s)", p.cmd.ProcessState)
		}
	default:
	}
	if err == io.EOF || errors.Is(err, syscall.EPIPE) {
		return p.fail("%s: the program %s %s", op, status, when)
	}
	return p.fail("%s: the program %s %s: %v", op, status, when, err)
}

// fail stops the process and builds the error: what went wrong, then the
// end of the program's stderr.
func (p *proc) fail(format string, a ...any) error {
	p.kill()
	msg := p.name + ": " + fmt.Sprintf(format, a...)
	if s := p.stderr.String(); s != "" {
		msg += "; its stderr ends:\n    " + strings.ReplaceAll(s, "\n", "\n    ")
	}
	return errors.New(msg)
}

// kill ends the process at once and reaps it.
func (p *proc) kill() {
	if p.closed {
		return
	}
	p.closed = true
	p.cmd.Process.Kill()
	<-p.exited
	p.in.Close()
	p.out.Close()
}

// close ends a run: the program reads end of file on its stdin and should
// exit; after a grace period it is killed. Either way it is reaped. What
// it wrote after its last answer answers no request (two answers to one
// request): that is an error, as the run's answers may have been shifted.
func (p *proc) close() error {
	if p.closed {
		return nil
	}
	p.w.Flush()
	p.in.Close()
	end := time.Now().Add(grace)
	p.out.SetReadDeadline(end) // its stdout ends when it exits
	rest, _ := io.ReadAll(io.LimitReader(p.r, 200))
	if len(bytes.TrimSpace(rest)) > 0 {
		return p.fail("after its last answer (to request %d), the program wrote %s, which answers no request (two answers to one request? docs/protocol.md: exactly one answer line per request)", p.requests, quote(rest))
	}
	select {
	case <-p.exited:
	case <-time.After(time.Until(end)):
	}
	p.kill()
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if t.cut && s != "" {
		s = "..." + s
	}
	return s
}
