package cli

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar on stderr when stderr is a terminal, and
// nothing otherwise (logs and CI stay clean). Add and Set are safe on a nil
// progress.
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(stderr io.Writer, what string, total int) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || total <= 0 {
		return nil
	}
	return &progress{progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(what), progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30))}
}

// set shows n of the total done.
func (p *progress) set(n int) {
	if p != nil {
		p.bar.Set(n)
	}
}

// add counts one more done.
func (p *progress) add() {
	if p != nil {
		p.bar.Add(1)
	}
}

// done clears the bar.
func (p *progress) done() {
	if p != nil {
		p.bar.Finish()
	}
}
