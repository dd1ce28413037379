package trace

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// pajeHeader declares the Paje events WritePaje uses, with the field
// names and numbers of StarPU's own traces (src/debug/traces/
// starpu_paje.c), so pj_dump, ViTE and StarVZ read them alike.
const pajeHeader = `%EventDef PajeDefineContainerType 0
%	Alias string
%	Type string
%	Name string
%EndEventDef
%EventDef PajeDefineVariableType 1
%	Alias string
%	Type string
%	Name string
%	Color color
%EndEventDef
%EventDef PajeDefineStateType 2
%	Alias string
%	Type string
%	Name string
%EndEventDef
%EventDef PajeDefineLinkType 4
%	Alias string
%	Type string
%	StartContainerType string
%	EndContainerType string
%	Name string
%EndEventDef
%EventDef PajeDefineEntityValue 5
%	Alias string
%	Type string
%	Name string
%	Color color
%EndEventDef
%EventDef PajeCreateContainer 6
%	Time date
%	Alias string
%	Type string
%	Container string
%	Name string
%EndEventDef
%EventDef PajeDestroyContainer 7
%	Time date
%	Type string
%	Name string
%EndEventDef
%EventDef PajeSetVariable 8
%	Time date
%	Type string
%	Container string
%	Value double
%EndEventDef
%EventDef PajeSetState 10
%	Time date
%	Type string
%	Container string
%	Value string
%EndEventDef
%EventDef PajeStartLink 14
%	Time date
%	Type string
%	Container string
%	Value string
%	StartContainer string
%	Key string
%EndEventDef
%EventDef PajeEndLink 15
%	Time date
%	Type string
%	Container string
%	Value string
%	EndContainer string
%	Key string
%EndEventDef
`

// Paje type aliases: the machine holds workers (with their state) and
// memory nodes (with their memory use); transfers link memory nodes.
const (
	pajeMachine  = "M"
	pajeWorker   = "W"
	pajeNode     = "N"
	pajeState    = "S"
	pajeTransfer = "L"
	pajeMemory   = "U"
)

// WritePaje writes the timeline as a Paje trace: containers for the
// workers (state: computing, fetching, idle) and the memory nodes
// (variable: memory used, MiB), one link per copy from its source node to
// its destination (value: fetch, prefetch, writeback). Times are in
// milliseconds, as in StarPU's paje.trace, so StarVZ's scales read right.
func WritePaje(w io.Writer, tl *Timeline) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(pajeHeader)
	fmt.Fprintf(bw, "0 %s 0 Machine\n", pajeMachine)
	fmt.Fprintf(bw, "0 %s %s Worker\n", pajeWorker, pajeMachine)
	fmt.Fprintf(bw, "0 %s %s \"Memory node\"\n", pajeNode, pajeMachine)
	fmt.Fprintf(bw, "2 %s %s \"Worker state\"\n", pajeState, pajeWorker)
	fmt.Fprintf(bw, "1 %s %s \"Memory used (MiB)\" \"0 0 1\"\n", pajeMemory, pajeNode)
	fmt.Fprintf(bw, "4 %s %s %s %s Transfer\n", pajeTransfer, pajeMachine, pajeNode, pajeNode)
	for _, v := range []struct{ name, color string }{{Computing, "0 0.7 0"}, {Fetching, "1 0.5 0"}, {Idle, "0.6 0.6 0.6"}} {
		fmt.Fprintf(bw, "5 %s %s %s \"%s\"\n", v.name, pajeState, v.name, v.color)
	}
	for _, v := range []string{"fetch", "prefetch", "writeback"} {
		fmt.Fprintf(bw, "5 %s %s %s \"0 0 0\"\n", v, pajeTransfer, v)
	}
	fmt.Fprintf(bw, "6 0 m %s 0 memsched\n", pajeMachine)
	for n := range tl.Nodes {
		fmt.Fprintf(bw, "6 0 n%d %s m %q\n", n, pajeNode, tl.NodeName(n))
		fmt.Fprintf(bw, "8 0 %s n%d 0\n", pajeMemory, n)
	}
	for wi := range tl.Workers {
		fmt.Fprintf(bw, "6 0 w%d %s m %s\n", wi, pajeWorker, tl.WorkerName(wi))
	}
	// The rest in time order (pajeng refuses time going back); at one
	// instant, ends before starts, so a link or state of zero length
	// still opens before it closes.
	type line struct {
		t    float64
		rank int
		text string
	}
	var lines []line
	for _, s := range tl.States {
		lines = append(lines, line{s.Start, 1, fmt.Sprintf("10 %s %s w%d %s", ms(s.Start), pajeState, s.Worker, s.What)})
	}
	for i, c := range tl.Copies {
		lines = append(lines,
			line{c.Start, 1, fmt.Sprintf("14 %s %s m %s n%d c%d", ms(c.Start), pajeTransfer, c.Kind, c.Src, i)},
			line{c.End, 2, fmt.Sprintf("15 %s %s m %s n%d c%d", ms(c.End), pajeTransfer, c.Kind, c.Dst, i)})
	}
	for _, m := range tl.Memory {
		lines = append(lines, line{m.T, 0, fmt.Sprintf("8 %s %s n%d %s", ms(m.T), pajeMemory, m.Node, strconv.FormatFloat(float64(m.Bytes)/(1<<20), 'g', -1, 64))})
	}
	sort.SliceStable(lines, func(a, b int) bool {
		if lines[a].t != lines[b].t {
			return lines[a].t < lines[b].t
		}
		return lines[a].rank < lines[b].rank
	})
	for _, l := range lines {
		bw.WriteString(l.text)
		bw.WriteByte('\n')
	}
	for wi := range tl.Workers {
		fmt.Fprintf(bw, "7 %s %s w%d\n", ms(tl.End), pajeWorker, wi)
	}
	for n := range tl.Nodes {
		fmt.Fprintf(bw, "7 %s %s n%d\n", ms(tl.End), pajeNode, n)
	}
	fmt.Fprintf(bw, "7 %s %s m\n", ms(tl.End), pajeMachine)
	return bw.Flush()
}

// ms formats a time in seconds as milliseconds, exactly (shortest form
// that reads back to the same float).
func ms(s float64) string { return strconv.FormatFloat(s*1e3, 'g', -1, 64) }
