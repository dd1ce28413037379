package hardware

// Importer of a StarPU calibration directory (what StarPU's SimGrid mode
// reads) into a platform preset: `memsched calibrate --from-starpu`.
//
// StarPU stores a machine's calibration under $STARPU_HOME/.starpu/sampling:
//
//	bus/HOST.config          counts of CPUs, NUMA nodes, CUDA devices, ...
//	bus/HOST.bandwidth       node x node matrix, MB/s (1e6 bytes/s); node 0 = RAM, 1..n = CUDA0..
//	bus/HOST.latency         the same, in µs
//	bus/HOST.platform.xml    the SimGrid platform (v3; .platform.v4.xml for SimGrid >= 3.x)
//	codelets/45/SYMBOL.HOST  the history-based performance models (format version 45)
//
// SimGrid gives each task the history mean of its footprint on its device
// (src/core/simgrid.c _starpu_simgrid_submit_job) and routes each copy over
// the platform's links; ImportStarPU maps both onto memsched's model and
// writes every number with the file, row/column or footprint it comes from.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"github.com/memsched/memsched/workloads"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Limits on what the importer reads.
const (
	starpuMaxNodes     = 64       // rows and columns of a bus matrix
	starpuMaxBusFile   = 1 << 20  // bytes of a config, bandwidth or latency file
	starpuMaxXMLFile   = 32 << 20 // bytes of a platform.xml
	starpuMaxModelFile = 16 << 20 // bytes of a codelet model
	starpuMaxMBps      = 1e8      // 100 TB/s: above it a bandwidth is not a measurement
	starpuMaxLatencyUS = 1e7      // 10 s
	starpuMaxMeanUS    = 1e10     // a task of more than about 3 hours is not a measurement
	starpuMaxFlops     = 1e18
	starpuMaxMemBytes  = 1 << 50 // 1 PiB of GPU memory
	starpuModelVersion = 45
	// starpuNVLinkFactor: a GPU pair is joined by NVLink when its bandwidth
	// exceeds this factor times the fastest RAM<->GPU bandwidth.
	starpuNVLinkFactor = 1.5
	// starpuFlopsTol: a history entry matches a task shape when its flops
	// are within this relative distance (StarPU's flop formulas add
	// lower-order terms: FLOPS_SPOTRF(960) is t³/3 + 0.16 %).
	starpuFlopsTol = 0.01
)

// StarPUOptions say how ImportStarPU maps the calibration; zero fields take
// defaults.
type StarPUOptions struct {
	Name      string  // preset name (default: the host name)
	MemoryMiB float64 // memory_mib written to the preset (500, the papers' cap)
	Tile, Z   int     // task shapes the kernels are read at: 2D tile×tile×z, 3D and Cholesky tile³ (960, 3840)
	// Codelets are the task shapes of an imported StarPU task graph
	// (workloads.ReadStarPUTasks): each becomes a kernel named by its
	// symbol whose history holds, per CUDA device, the model's mean for
	// the footprint (codelets/45/SYMBOL.HOST), else the tasks' recorded
	// mean (as starpu_replay falls back to EndTime - StartTime). With
	// codelets the sgemm model is not required.
	Codelets []workloads.StarPUCodelet
}

func (o StarPUOptions) withDefaults(host string) StarPUOptions {
	if o.Name == "" {
		o.Name = host
	}
	if o.MemoryMiB == 0 {
		o.MemoryMiB = 500
	}
	if o.Tile == 0 {
		o.Tile = workloads.DefaultTile
	}
	if o.Z == 0 {
		o.Z = workloads.DefaultZ
	}
	return o
}

// StarPUImport is what ImportStarPU read and derived; TOML renders it.
type StarPUImport struct {
	Host string
	Opt  StarPUOptions
	// Files are the files read, relative to the sampling directory, with
	// their SHA-256.
	Files []starpuFile

	CPUs, NUMANodes, CUDA int // bus/HOST.config
	configLine            map[string]int

	// BW and Lat are the (1+CUDA)² corner of the bus matrices: node 0 is
	// RAM, node 1+i is CUDA i; MB/s and µs.
	BW, Lat           [][]float64
	bwLines, latLines []int   // file line of each row
	pcieMax, single   float64 // MB/s: the fastest RAM<->GPU bandwidth; the slowest NVLink pair (0: none)

	XMLFile    string  // bus/HOST.platform.xml or .platform.v4.xml
	MemBytes   []int64 // memsize of CUDA0.. (bytes)
	MemcpyPeer bool    // every CUDA host has prop memcpy_peer = 1
	tree       starpuTree
	// RouteLat is the latency of each SimGrid route between RAM and the
	// CUDA hosts, in µs, the sum of its links' (node 0 RAM, 1+i CUDA i, as
	// BW); nil when a route is missing (routeNote says which).
	RouteLat  [][]float64
	routeNote string

	Kernels []starpuKernelResult
	// Codelets are the kernels of Opt.Codelets, one per symbol.
	Codelets []starpuCodeletKernel
	models   map[string]*starpuModel
	// Missing are kernels not written, with why.
	Missing []string
}

type starpuFile struct{ Rel, SHA string }

// starpuTree is the sharing of PCIe links by the RAM->CUDA routes of the
// SimGrid platform.
type starpuTree struct {
	note                     string // why no sharing was derived, when so
	switchSize               int    // GPUs per switch (1: none)
	switchLink               string
	switchGBps               float64
	switchLinks              int // links shared by 2..n-1 GPUs
	allLink                  string
	allGBps                  float64 // 0: no link on every route
	allBothWays              bool    // the shared link is on the CUDA->RAM routes too
	routes                   int
	peerCrossesAll, peerSeen int // non-NVLink GPU->GPU routes crossing the shared link
	// portLink is the slowest link of one GPU alone on the routes between
	// RAM and the GPUs, besides RAM-CUDAi and CUDAi-RAM (the GPU's PCI
	// device link); "" when some GPU has none.
	portLink string
	portGBps float64
	// nvlinkRoutes NVLink pairs' routes, nvlinkOverPCI of them crossing
	// more than their CUDAi-CUDAj link.
	nvlinkRoutes, nvlinkOverPCI int
}

// ImportStarPU reads the StarPU calibration of host in dir (a sampling
// directory holding bus/ and codelets/45/, or a directory holding
// sampling/) and maps it onto a platform. Every number read is bounded;
// an error names the file and line.
func ImportStarPU(dir, host string, opt StarPUOptions) (*StarPUImport, error) {
	if err := checkHostName(host); err != nil {
		return nil, err
	}
	if st, err := os.Stat(filepath.Join(dir, "sampling", "bus")); err == nil && st.IsDir() {
		dir = filepath.Join(dir, "sampling")
	}
	if st, err := os.Stat(filepath.Join(dir, "bus")); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: no bus/ directory; give StarPU's sampling directory (holding bus/ and codelets/45/, e.g. ~/.starpu/sampling)", dir)
	}
	opt = opt.withDefaults(host)
	switch {
	case !(opt.MemoryMiB > 0) || math.IsInf(opt.MemoryMiB, 0):
		return nil, fmt.Errorf("memory %g MiB: give a positive number of MiB per GPU", opt.MemoryMiB)
	case opt.Tile < 1 || opt.Tile > 1<<16 || opt.Z < 1 || opt.Z > 1<<20:
		return nil, fmt.Errorf("tile %d, z %d: give a tile in 1..65536 and z in 1..1048576", opt.Tile, opt.Z)
	}
	c := &StarPUImport{Host: host, Opt: opt}
	r := &starpuReader{dir: dir, imp: c}
	if err := c.readConfig(r); err != nil {
		return nil, err
	}
	var err error
	if c.BW, c.bwLines, err = r.matrix("bandwidth", c.CUDA, true); err != nil {
		return nil, err
	}
	if c.Lat, c.latLines, err = r.matrix("latency", c.CUDA, false); err != nil {
		return nil, err
	}
	c.pcieMax, c.single = c.pcieMaxMBps(), c.nvlinkSingleMBps()
	if err := c.readPlatform(r); err != nil {
		return nil, err
	}
	if err := c.readKernels(r); err != nil {
		return nil, err
	}
	return c, nil
}

func checkHostName(host string) error {
	if host == "" || len(host) > 255 || host == "." || host == ".." {
		return fmt.Errorf("host %q: give the StarPU host name the files are named after (STARPU_HOSTNAME, e.g. gemini-2-ipdps)", host)
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("host %q: a StarPU host name has letters, digits, '-', '_' and '.' only", host)
		}
	}
	return nil
}

// starpuReader reads the files of one sampling directory.
type starpuReader struct {
	dir string
	imp *StarPUImport
}

// read returns a file's content, at most limit bytes; missing is true when
// it does not exist.
func (r *starpuReader) read(rel string, limit int64) (data []byte, missing bool, err error) {
	path := filepath.Join(r.dir, rel)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, fmt.Errorf("%s: no such file", path)
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %v", path, err)
	}
	if int64(len(data)) > limit {
		return nil, false, fmt.Errorf("%s: larger than %d bytes; not a StarPU calibration file", path, limit)
	}
	sum := sha256.Sum256(data)
	r.imp.Files = append(r.imp.Files, starpuFile{rel, hex.EncodeToString(sum[:8])})
	return data, false, nil
}

func (r *starpuReader) path(rel string) string { return filepath.Join(r.dir, rel) }

// lines splits a file into lines, numbered from 1.
func lines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.Split(s, "\n")
}

func (c *StarPUImport) bus(suffix string) string { return "bus/" + c.Host + "." + suffix }

func (c *StarPUImport) readConfig(r *starpuReader) error {
	rel := c.bus("config")
	data, _, err := r.read(rel, starpuMaxBusFile)
	if err != nil {
		return err
	}
	path := r.path(rel)
	c.configLine = map[string]int{}
	vals := map[string]int{}
	for i, ln := range lines(data) {
		t := strings.TrimSpace(ln)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		v, label, ok := strings.Cut(t, "#")
		if !ok {
			return fmt.Errorf("%s:%d: %q: want \"COUNT # label\" (StarPU's bus config)", path, i+1, t)
		}
		label = strings.TrimSpace(label)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 1<<20 {
			return fmt.Errorf("%s:%d: %s = %q: want a count in 0..%d", path, i+1, label, strings.TrimSpace(v), 1<<20)
		}
		vals[label] = n
		c.configLine[label] = i + 1
	}
	n, ok := vals["Number of CUDA devices"]
	switch {
	case !ok:
		return fmt.Errorf("%s: no \"Number of CUDA devices\" line; not a StarPU bus config", path)
	case n < 1:
		return fmt.Errorf("%s:%d: Number of CUDA devices = 0; a preset needs at least one GPU", path, c.configLine["Number of CUDA devices"])
	case n > starpuMaxNodes-1:
		return fmt.Errorf("%s:%d: Number of CUDA devices = %d; at most %d (bus matrices have at most %d nodes, RAM included)", path, c.configLine["Number of CUDA devices"], n, starpuMaxNodes-1, starpuMaxNodes)
	}
	c.CUDA = n
	c.CPUs, c.NUMANodes = vals["Number of CPUs"], vals["Number of NUMA nodes"]
	return nil
}

// nodeName names a bus matrix node: 0 RAM, 1..n CUDA, then others.
func (c *StarPUImport) nodeName(i int) string {
	switch {
	case i == 0:
		return "RAM"
	case i <= c.CUDA:
		return fmt.Sprintf("CUDA%d", i-1)
	}
	return fmt.Sprintf("node %d", i)
}

// parseStarPUFloat reads a number as StarPU prints it (%e, nan, -nan, inf).
func parseStarPUFloat(s string) (float64, error) {
	if t := strings.TrimLeft(s, "+-"); strings.EqualFold(t, "nan") {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

// matrix reads bus/HOST.KIND: a square matrix of at most starpuMaxNodes
// nodes, and checks the entries between RAM and the n CUDA devices: finite,
// positive (bandwidth) or non-negative (latency), bounded. It returns the
// (1+n)² corner and each row's line.
func (r *starpuReader) matrix(kind string, n int, bandwidth bool) ([][]float64, []int, error) {
	rel := r.imp.bus(kind)
	data, _, err := r.read(rel, starpuMaxBusFile)
	if err != nil {
		return nil, nil, err
	}
	path := r.path(rel)
	var rows [][]float64
	var at []int
	for i, ln := range lines(data) {
		t := strings.TrimSpace(ln)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Fields(t)
		if len(rows) == starpuMaxNodes {
			return nil, nil, fmt.Errorf("%s:%d: more than %d rows; a StarPU bus matrix has at most %d nodes", path, i+1, starpuMaxNodes, starpuMaxNodes)
		}
		if len(f) > starpuMaxNodes {
			return nil, nil, fmt.Errorf("%s:%d: %d columns; a StarPU bus matrix has at most %d nodes", path, i+1, len(f), starpuMaxNodes)
		}
		if len(rows) > 0 && len(f) != len(rows[0]) {
			return nil, nil, fmt.Errorf("%s:%d: %d columns, the first row has %d; truncated or not a StarPU bus matrix", path, i+1, len(f), len(rows[0]))
		}
		row := make([]float64, len(f))
		for j, s := range f {
			v, err := parseStarPUFloat(s)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: row %d, column %d (%s to %s): %q is not a number", path, i+1, len(rows), j, r.imp.nodeName(len(rows)), r.imp.nodeName(j), s)
			}
			row[j] = v
		}
		rows = append(rows, row)
		at = append(at, i+1)
	}
	if len(rows) < n+1 || len(rows[0]) < n+1 {
		cols := 0
		if len(rows) > 0 {
			cols = len(rows[0])
		}
		return nil, nil, fmt.Errorf("%s: %d rows of %d columns; the config's %d CUDA devices need at least %d (RAM, then CUDA0..CUDA%d)", path, len(rows), cols, n, n+1, n-1)
	}
	if len(rows) != len(rows[0]) {
		return nil, nil, fmt.Errorf("%s: %d rows of %d columns; a StarPU bus matrix is square", path, len(rows), len(rows[0]))
	}
	out := make([][]float64, n+1)
	for i := range out {
		out[i] = rows[i][:n+1]
		for j, v := range out[i] {
			if i == j {
				continue
			}
			ok := !math.IsNaN(v) && !math.IsInf(v, 0)
			want := "a finite number >= 0 and <= 1e7 µs"
			if bandwidth {
				ok = ok && v > 0 && v <= starpuMaxMBps
				want = "a finite positive number of MB/s, at most 1e8"
			} else {
				ok = ok && v >= 0 && v <= starpuMaxLatencyUS
			}
			if !ok {
				return nil, nil, fmt.Errorf("%s:%d: row %d, column %d (%s to %s) is %s; the %s between RAM and the CUDA devices of the config must be %s",
					path, at[i], i, j, r.imp.nodeName(i), r.imp.nodeName(j), strconv.FormatFloat(v, 'g', -1, 64), kind, want)
			}
		}
	}
	return out, at[:n+1], nil
}

// SimGrid platform file, v3 (<AS>) or v4 (<zone>).
type sgPlatform struct {
	XMLName xml.Name `xml:"platform"`
	AS      []sgZone `xml:"AS"`
	Zone    []sgZone `xml:"zone"`
}

type sgZone struct {
	Hosts  []sgHost  `xml:"host"`
	Links  []sgLink  `xml:"link"`
	Routes []sgRoute `xml:"route"`
	AS     []sgZone  `xml:"AS"`
	Zone   []sgZone  `xml:"zone"`
}

type sgHost struct {
	ID    string `xml:"id,attr"`
	Props []struct {
		ID    string `xml:"id,attr"`
		Value string `xml:"value,attr"`
	} `xml:"prop"`
}

type sgLink struct {
	ID        string `xml:"id,attr"`
	Bandwidth string `xml:"bandwidth,attr"`
	Latency   string `xml:"latency,attr"`
}

type sgRoute struct {
	Src   string `xml:"src,attr"`
	Dst   string `xml:"dst,attr"`
	Links []struct {
		ID string `xml:"id,attr"`
	} `xml:"link_ctn"`
}

func (z *sgZone) flatten(out *sgZone) {
	out.Hosts = append(out.Hosts, z.Hosts...)
	out.Links = append(out.Links, z.Links...)
	out.Routes = append(out.Routes, z.Routes...)
	for i := range z.AS {
		z.AS[i].flatten(out)
	}
	for i := range z.Zone {
		z.Zone[i].flatten(out)
	}
}

// lineOf is the line of the first occurrence of needle in data (0 if none).
func lineOf(data []byte, needle string) int {
	i := bytes.Index(data, []byte(needle))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// parseSGBandwidth reads a SimGrid bandwidth: bytes/s, bare (v3) or with a
// unit (v4: "Bps", "kBps", "MBps", "GBps", "TBps").
func parseSGBandwidth(s string) (float64, error) {
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"TBps", 1e12}, {"GBps", 1e9}, {"MBps", 1e6}, {"kBps", 1e3}, {"KBps", 1e3}, {"Bps", 1}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = t, u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	v *= mult
	if err != nil || !(v > 0) || v > starpuMaxMBps*1e6 {
		return 0, fmt.Errorf("want a positive number of bytes/s (at most 1e14), optionally with a unit Bps, kBps, MBps, GBps or TBps")
	}
	return v, nil
}

// parseSGLatency reads a SimGrid latency: seconds, bare (v3) or with a
// unit (v4: "s", "ms", "us", "ns"); absent is 0.
func parseSGLatency(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = t, u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	v *= mult
	if err != nil || !(v >= 0) || v > starpuMaxLatencyUS*1e-6 {
		return 0, fmt.Errorf("want a non-negative number of seconds (at most 10), optionally with a unit s, ms, us or ns")
	}
	return v, nil
}

func (c *StarPUImport) readPlatform(r *starpuReader) error {
	rel := c.bus("platform.xml")
	data, missing, err := r.read(rel, starpuMaxXMLFile)
	if missing {
		rel = c.bus("platform.v4.xml")
		data, missing, err = r.read(rel, starpuMaxXMLFile)
		if missing {
			return fmt.Errorf("%s: no such file (nor %s); StarPU writes it with the bus calibration", r.path(c.bus("platform.xml")), filepath.Base(rel))
		}
	}
	if err != nil {
		return err
	}
	c.XMLFile = rel
	path := r.path(rel)
	var p sgPlatform
	dec := xml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		line, _ := dec.InputPos()
		return fmt.Errorf("%s:%d: %v; not a SimGrid platform file", path, line, err)
	}
	var all sgZone
	for i := range p.AS {
		p.AS[i].flatten(&all)
	}
	for i := range p.Zone {
		p.Zone[i].flatten(&all)
	}

	// memsize and memcpy_peer of each CUDA host.
	hosts := map[string]*sgHost{}
	for i := range all.Hosts {
		hosts[all.Hosts[i].ID] = &all.Hosts[i]
	}
	c.MemBytes = make([]int64, c.CUDA)
	c.MemcpyPeer = true
	for g := range c.CUDA {
		id := fmt.Sprintf("CUDA%d", g)
		h := hosts[id]
		if h == nil {
			return fmt.Errorf("%s: no <host id=%q>; the config has %d CUDA devices", path, id, c.CUDA)
		}
		line := lineOf(data, `id="`+id+`"`)
		var mem, peer string
		for _, pr := range h.Props {
			switch pr.ID {
			case "memsize":
				mem = pr.Value
			case "memcpy_peer":
				peer = pr.Value
			}
		}
		b, err := strconv.ParseInt(mem, 10, 64)
		if err != nil || b <= 0 || b > starpuMaxMemBytes {
			return fmt.Errorf("%s:%d: host %s: memsize = %q; want the GPU's memory, a positive number of bytes (at most 2^50)", path, line, id, mem)
		}
		c.MemBytes[g] = b
		if peer != "1" {
			c.MemcpyPeer = false
		}
	}

	links, lat := map[string]float64{}, map[string]float64{}
	for _, l := range all.Links {
		v, err := parseSGBandwidth(l.Bandwidth)
		if err != nil {
			return fmt.Errorf("%s:%d: link %q: bandwidth %q: %v", path, lineOf(data, `id="`+l.ID+`"`), l.ID, l.Bandwidth, err)
		}
		links[l.ID] = v
		if lat[l.ID], err = parseSGLatency(l.Latency); err != nil {
			return fmt.Errorf("%s:%d: link %q: latency %q: %v", path, lineOf(data, `id="`+l.ID+`"`), l.ID, l.Latency, err)
		}
	}
	routes := map[[2]string][]string{}
	for _, rt := range all.Routes {
		var ids []string
		for _, l := range rt.Links {
			if _, ok := links[l.ID]; !ok {
				return fmt.Errorf("%s:%d: route %s -> %s crosses link %q, which no <link> declares", path, lineOf(data, `src="`+rt.Src+`" dst="`+rt.Dst+`"`), rt.Src, rt.Dst, l.ID)
			}
			if !slices.Contains(ids, l.ID) {
				ids = append(ids, l.ID)
			}
		}
		routes[[2]string{rt.Src, rt.Dst}] = ids
	}
	c.tree = c.deriveTree(links, routes)
	c.routeLatencies(lat, routes)
	return nil
}

// routeLatencies sums the latencies of the links of each route between RAM
// and the CUDA hosts, as SimGrid does (NetZoneImpl::get_global_route adds
// each link's latency to the route's).
func (c *StarPUImport) routeLatencies(lat map[string]float64, routes map[[2]string][]string) {
	name := func(i int) string {
		if i == 0 {
			return "RAM"
		}
		return fmt.Sprintf("CUDA%d", i-1)
	}
	m := make([][]float64, 1+c.CUDA)
	for i := range m {
		m[i] = make([]float64, 1+c.CUDA)
		for j := range m[i] {
			if i == j {
				continue
			}
			ids, ok := routes[[2]string{name(i), name(j)}]
			if !ok {
				c.routeNote = fmt.Sprintf("no route %s -> %s", name(i), name(j))
				return
			}
			for _, id := range ids {
				m[i][j] += lat[id] * 1e6
			}
			m[i][j] = math.Round(m[i][j]*1e6) / 1e6 // whole picoseconds: the sum's rounding noise off
		}
	}
	c.RouteLat = m
}

// deriveTree finds which PCIe links the RAM->CUDA routes share: the links
// on every route (the host link) and those shared by aligned groups of 2 to
// n-1 GPUs (switches), collapsed onto memsched's two shared levels.
func (c *StarPUImport) deriveTree(links map[string]float64, routes map[[2]string][]string) starpuTree {
	n := c.CUDA
	t := starpuTree{switchSize: 1}
	users := map[string][]int{}
	var order []string
	for g := range n {
		ids, ok := routes[[2]string{"RAM", fmt.Sprintf("CUDA%d", g)}]
		if !ok {
			t.note = fmt.Sprintf("no route RAM -> CUDA%d", g)
			return t
		}
		t.routes++
		for _, id := range ids {
			if users[id] == nil {
				order = append(order, id)
			}
			users[id] = append(users[id], g)
		}
	}
	for _, id := range order {
		u := users[id]
		k := len(u)
		switch {
		case k == n && id != "RAM-CUDA0":
			if t.allGBps == 0 || links[id] < t.allGBps {
				t.allLink, t.allGBps = id, links[id]
			}
		case k > 1 && k < n:
			if u[0]%k != 0 || u[k-1] != u[0]+k-1 {
				t.note = fmt.Sprintf("link %q is shared by CUDA %v, not an aligned group of consecutive GPUs as memsched's tree needs", id, u)
				t.switchSize, t.switchLink, t.switchGBps, t.switchLinks = 1, "", 0, 0
				return t
			}
			t.switchLinks++
			if t.switchSize == 1 || k < t.switchSize {
				t.switchSize = k
			}
			if t.switchGBps == 0 || links[id] < t.switchGBps {
				t.switchLink, t.switchGBps = id, links[id]
			}
		}
	}
	if t.allLink != "" {
		t.allBothWays = true
		for g := range n {
			if !slices.Contains(routes[[2]string{fmt.Sprintf("CUDA%d", g), "RAM"}], t.allLink) {
				t.allBothWays = false
			}
		}
		for a := range n {
			for b := range n {
				if ids, ok := routes[[2]string{fmt.Sprintf("CUDA%d", a), fmt.Sprintf("CUDA%d", b)}]; ok && a != b && c.nvlinks(a, b) == 0 {
					t.peerSeen++
					if slices.Contains(ids, t.allLink) {
						t.peerCrossesAll++
					}
				}
			}
		}
	}
	// Each GPU's own PCI links (on its routes to and from RAM only, besides
	// RAM-CUDAi and CUDAi-RAM), and the NVLink routes crossing PCI.
	own := map[string][]int{}
	for g := range n {
		for _, r := range [][2]string{{"RAM", fmt.Sprintf("CUDA%d", g)}, {fmt.Sprintf("CUDA%d", g), "RAM"}} {
			for _, id := range routes[r] {
				if !slices.Contains(own[id], g) {
					own[id] = append(own[id], g)
				}
			}
		}
	}
	ports := 0
	for g := range n {
		found := false
		for _, r := range [][2]string{{"RAM", fmt.Sprintf("CUDA%d", g)}, {fmt.Sprintf("CUDA%d", g), "RAM"}} {
			for _, id := range routes[r] {
				if id == r[0]+"-"+r[1] || len(own[id]) != 1 {
					continue
				}
				found = true
				if t.portGBps == 0 || links[id] < t.portGBps || (links[id] == t.portGBps && id < t.portLink) {
					t.portLink, t.portGBps = id, links[id]
				}
			}
		}
		if found {
			ports++
		}
	}
	if ports != n {
		t.portLink, t.portGBps = "", 0
	}
	for a := range n {
		for b := range n {
			if ids, ok := routes[[2]string{fmt.Sprintf("CUDA%d", a), fmt.Sprintf("CUDA%d", b)}]; ok && a != b && c.nvlinks(a, b) > 0 {
				t.nvlinkRoutes++
				if len(ids) > 1 {
					t.nvlinkOverPCI++
				}
			}
		}
	}
	return t
}

// pcieMaxMBps is the fastest RAM<->GPU bandwidth; nvlinkSingleMBps the
// slowest pair above starpuNVLinkFactor times it (0: none).
func (c *StarPUImport) pcieMaxMBps() float64 {
	m := 0.0
	for g := 1; g <= c.CUDA; g++ {
		m = max(m, c.BW[0][g], c.BW[g][0])
	}
	return m
}

func (c *StarPUImport) pairMBps(a, b int) float64 { return (c.BW[1+a][1+b] + c.BW[1+b][1+a]) / 2 }

func (c *StarPUImport) nvlinkSingleMBps() float64 {
	lim, single := starpuNVLinkFactor*c.pcieMaxMBps(), 0.0
	for a := range c.CUDA {
		for b := a + 1; b < c.CUDA; b++ {
			if bw := c.pairMBps(a, b); bw > lim && (single == 0 || bw < single) {
				single = bw
			}
		}
	}
	return single
}

// nvlinks is the number of NVLink links of a pair: its bandwidth over the
// single-link bandwidth, rounded; 0 at PCIe level.
func (c *StarPUImport) nvlinks(a, b int) int {
	if a == b || c.single == 0 || c.pairMBps(a, b) <= starpuNVLinkFactor*c.pcieMax {
		return 0
	}
	return max(1, int(math.Round(c.pairMBps(a, b)/c.single)))
}

// starpuKernelMap says which StarPU model entry a memsched kernel is read
// from: the codelet's symbol and the flops StarPU records for the task
// shape, and the flops memsched's task of that shape counts (the rate
// written gives memsched's task the duration SimGrid gives StarPU's).
type starpuKernelMap struct {
	kernel, symbol, shape string
	starpuFlops, flops    float64
	why                   string
	// also are entries only cited in the comment: what they imply at this rate.
	also []starpuKernelMap
}

func (o StarPUOptions) kernelMaps() []starpuKernelMap {
	t, z := float64(o.Tile), float64(o.Z)
	t3 := t * t * t
	gemm2D := fmt.Sprintf("2D task %dx%dx%d", o.Tile, o.Tile, o.Z)
	cube := fmt.Sprintf("%dx%dx%d", o.Tile, o.Tile, o.Tile)
	return []starpuKernelMap{
		{kernel: "gemm", symbol: "starpu_sgemm_gemm", shape: gemm2D, starpuFlops: 2 * t * t * z, flops: 2 * t * t * z,
			why: "examples/mult/xgemm.c, the papers' 2D sgemm",
			also: []starpuKernelMap{
				{symbol: "starpu_sgemm_gemm", shape: "3D task " + cube, starpuFlops: 2 * t3, flops: 2 * t3},
				{symbol: "chol_model_22", shape: "Cholesky gemm " + cube, starpuFlops: 2 * t3, flops: 2 * t3},
			}},
		{kernel: "trsm", symbol: "chol_model_21", shape: "Cholesky trsm " + cube, starpuFlops: t3, flops: t3,
			why: "examples/cholesky/cholesky_implicit.c cl21, cuBLAS strsm"},
		{kernel: "syrk", symbol: "chol_model_22", shape: "Cholesky diagonal update " + cube, starpuFlops: 2 * t3, flops: t3,
			why: "examples/cholesky/cholesky_implicit.c updates the diagonal tiles with cl22 too, an SGEMM of FLOPS_SGEMM = 2t³ flops; the rate gives memsched's syrk (t³ flops) that SGEMM's duration"},
		{kernel: "potrf", symbol: "chol_model_11", shape: "Cholesky potrf " + fmt.Sprint(o.Tile) + "²", starpuFlops: t3 / 3, flops: t3 / 3,
			why: "examples/cholesky/cholesky_implicit.c cl11, FLOPS_SPOTRF = t³/3 + t²/2 + t/6"},
	}
}

// starpuEntry is one history line of a model file.
type starpuEntry struct {
	Footprint        string
	Size             uint64 // bytes of the task's data
	Flops, Mean, Dev float64
	N                uint64 // samples
	Line             int
	Comb, Impl       int
	DevType, DevID   int  // of the combination's first device (CUDA: 1)
	oneDevice        bool // the combination has one device
	hasFlops         bool
}

// starpuModel is a parsed codelet model file.
type starpuModel struct {
	rel     string
	entries []starpuEntry
}

// starpuChoice is the entry chosen on one CUDA device.
type starpuChoice struct {
	Dev    int
	Entry  starpuEntry
	Others []starpuEntry // other matching footprints on that device
}

type starpuKernelResult struct {
	Map     starpuKernelMap
	Rel     string
	Choices []starpuChoice
	MeanUS  float64 // mean over devices of the chosen means
	GFlops  float64
	Also    []starpuAlso
}

type starpuAlso struct {
	Map     starpuKernelMap
	Rel     string
	Choices []starpuChoice
	MeanUS  float64
	Note    string // why there is none
}

// modelLines reads a model file's non-comment lines.
type modelLines struct {
	path string
	ls   []string
	i    int
}

func (m *modelLines) next(what string) ([]string, int, error) {
	for m.i < len(m.ls) {
		t := strings.TrimSpace(m.ls[m.i])
		m.i++
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		return strings.Fields(t), m.i, nil
	}
	return nil, 0, fmt.Errorf("%s: ends at line %d while reading %s; the file is truncated", m.path, len(m.ls), what)
}

func (m *modelLines) int(what string, lo, hi int) (int, int, error) {
	f, line, err := m.next(what)
	if err != nil {
		return 0, 0, err
	}
	v, err := strconv.Atoi(f[0])
	if err != nil || v < lo || v > hi {
		return 0, line, fmt.Errorf("%s:%d: %s = %q; want an integer in %d..%d", m.path, line, what, f[0], lo, hi)
	}
	return v, line, nil
}

// parseStarPUModel parses a performance model file of format version 45
// (src/core/perfmodel/perfmodel_history.c parse_model_file).
func parseStarPUModel(path, rel string, data []byte) (*starpuModel, error) {
	m := &modelLines{path: path, ls: lines(data)}
	md := &starpuModel{rel: rel}
	v, line, err := m.int("the model version", 0, 1<<20)
	if err != nil {
		return nil, err
	}
	if v != starpuModelVersion {
		return nil, fmt.Errorf("%s:%d: performance model version %d; this importer reads version %d (StarPU 1.3/1.4)", path, line, v, starpuModelVersion)
	}
	ncombs, _, err := m.int("the number of combinations", 0, 4096)
	if err != nil {
		return nil, err
	}
	for comb := range ncombs {
		where := fmt.Sprintf("COMB_%d", comb)
		ndev, _, err := m.int(where+": number of devices", 1, starpuMaxNodes)
		if err != nil {
			return nil, err
		}
		var typ, id int
		for d := range ndev {
			t, _, err := m.int(fmt.Sprintf("%s: device %d type", where, d), 0, 16)
			if err != nil {
				return nil, err
			}
			i, _, err := m.int(fmt.Sprintf("%s: device %d id", where, d), 0, 1<<16)
			if err != nil {
				return nil, err
			}
			if _, _, err := m.int(fmt.Sprintf("%s: device %d cores", where, d), 0, 1<<16); err != nil {
				return nil, err
			}
			if d == 0 {
				typ, id = t, i
			}
		}
		nimpl, _, err := m.int(where+": number of implementations", 0, 64)
		if err != nil {
			return nil, err
		}
		for impl := range nimpl {
			w := fmt.Sprintf("%s implementation %d", where, impl)
			nent, _, err := m.int(w+": number of entries", 0, 1<<22)
			if err != nil {
				return nil, err
			}
			// regression: sumlnx sumlnx2 sumlny sumlnxlny alpha beta n minx maxx
			f, line, err := m.next(w + ": the regression line")
			if err != nil {
				return nil, err
			}
			if len(f) != 9 {
				return nil, fmt.Errorf("%s:%d: %s: %d fields in the regression line; want 9 (sumlnx sumlnx2 sumlny sumlnxlny alpha beta n minx maxx)", path, line, w, len(f))
			}
			if f, line, err = m.next(w + ": the non-linear regression line"); err != nil {
				return nil, err
			} else if len(f) != 3 {
				return nil, fmt.Errorf("%s:%d: %s: %d fields in the non-linear regression line; want 3 (a b c)", path, line, w, len(f))
			}
			if f, line, err = m.next(w + ": the multiple regression line"); err != nil {
				return nil, err
			}
			if nc, err := strconv.Atoi(f[0]); err != nil || nc < 0 || nc > 1024 || len(f) != 1+nc {
				return nil, fmt.Errorf("%s:%d: %s: multiple regression line %q; want a coefficient count (0..1024) then the coefficients", path, line, w, strings.Join(f, " "))
			}
			for range nent {
				e, err := m.entry(w)
				if err != nil {
					return nil, err
				}
				e.Comb, e.DevType, e.DevID, e.Impl, e.oneDevice = comb, typ, id, impl, ndev == 1
				md.entries = append(md.entries, e)
			}
		}
	}
	return md, nil
}

// entry parses a history line: hash size flops mean dev sum sum2 n (flops
// absent in older files: 7 fields).
func (m *modelLines) entry(where string) (starpuEntry, error) {
	f, line, err := m.next(where + ": a history entry")
	if err != nil {
		return starpuEntry{}, err
	}
	bad := func(format string, a ...any) (starpuEntry, error) {
		return starpuEntry{}, fmt.Errorf("%s:%d: %s: history entry %s", m.path, line, where, fmt.Sprintf(format, a...))
	}
	if len(f) != 8 && len(f) != 7 {
		return bad("has %d fields; want 8 (hash size flops mean dev sum sum2 n)", len(f))
	}
	e := starpuEntry{Footprint: f[0], Line: line, hasFlops: len(f) == 8}
	if _, err := strconv.ParseUint(f[0], 16, 32); err != nil {
		return bad("hash %q: want 8 hexadecimal digits", f[0])
	}
	if e.Size, err = strconv.ParseUint(f[1], 10, 63); err != nil {
		return bad("size %q: want a number of bytes", f[1])
	}
	nums := f[2:]
	if !e.hasFlops {
		nums = append([]string{"nan"}, nums...)
	}
	var v [5]float64
	names := []string{"flops", "mean", "dev", "sum", "sum2"}
	for i := range v {
		x, err := parseStarPUFloat(nums[i])
		switch {
		case err != nil:
			return bad("%s %q: not a number", names[i], nums[i])
		case i == 0 && math.IsNaN(x): // StarPU allows unknown flops
		case math.IsNaN(x) || math.IsInf(x, 0) || x < 0:
			return bad("%s = %s; want a finite number >= 0", names[i], nums[i])
		case i == 0 && x > starpuMaxFlops:
			return bad("flops = %s; want at most 1e18", nums[i])
		case i == 1 && x > starpuMaxMeanUS:
			return bad("mean = %s µs; want at most 1e10", nums[i])
		}
		v[i] = x
	}
	e.Flops, e.Mean, e.Dev = v[0], v[1], v[2]
	if e.N, err = strconv.ParseUint(nums[5], 10, 32); err != nil {
		return bad("n %q: want a sample count", nums[5])
	}
	return e, nil
}

// choose picks, on each CUDA device of the config with an entry, the
// footprint whose flops match (within starpuFlopsTol) with the most
// samples.
func (c *StarPUImport) choose(md *starpuModel, flops float64) []starpuChoice {
	var out []starpuChoice
	for g := range c.CUDA {
		var match []starpuEntry
		for _, e := range md.entries {
			if e.oneDevice && e.DevType == 1 && e.DevID == g && e.hasFlops && math.Abs(e.Flops-flops) <= starpuFlopsTol*flops && e.N > 0 && e.Mean > 0 {
				match = append(match, e)
			}
		}
		if len(match) == 0 {
			continue
		}
		best := 0
		for i, e := range match {
			if e.N > match[best].N {
				best = i
			}
		}
		ch := starpuChoice{Dev: g, Entry: match[best]}
		for i, e := range match {
			if i != best {
				ch.Others = append(ch.Others, e)
			}
		}
		out = append(out, ch)
	}
	return out
}

func meanUS(ch []starpuChoice) float64 {
	s := 0.0
	for _, c := range ch {
		s += c.Entry.Mean
	}
	return s / float64(len(ch))
}

// loadModel reads (once) the model of a symbol; ok false when the file is
// absent.
func (c *StarPUImport) loadModel(r *starpuReader, symbol string) (*starpuModel, string, bool, error) {
	rel := fmt.Sprintf("codelets/%d/%s.%s", starpuModelVersion, symbol, c.Host)
	if c.models == nil {
		c.models = map[string]*starpuModel{}
	}
	if md, ok := c.models[rel]; ok {
		return md, rel, md != nil, nil
	}
	data, missing, err := r.read(rel, starpuMaxModelFile)
	if missing {
		c.models[rel] = nil
		return nil, rel, false, nil
	}
	if err != nil {
		return nil, rel, false, err
	}
	md, err := parseStarPUModel(r.path(rel), rel, data)
	if err != nil {
		return nil, rel, false, err
	}
	c.models[rel] = md
	return md, rel, true, nil
}

func (c *StarPUImport) readKernels(r *starpuReader) error {
	load := func(symbol string) (*starpuModel, string, bool, error) { return c.loadModel(r, symbol) }
	codelets := len(c.Opt.Codelets) > 0
	for _, km := range c.Opt.kernelMaps() {
		if slices.ContainsFunc(c.Opt.Codelets, func(cd workloads.StarPUCodelet) bool { return cd.Kernel == km.kernel }) {
			continue // the task graph's codelet of that name replaces it
		}
		md, rel, ok, err := load(km.symbol)
		if err != nil {
			return err
		}
		if !ok {
			if km.kernel == "gemm" && !codelets {
				return fmt.Errorf("%s: no such file; the gemm kernel's model (StarPU's sgemm example, %s) is needed", r.path(rel), km.symbol)
			}
			c.Missing = append(c.Missing, fmt.Sprintf("%s: no %s", km.kernel, rel))
			continue
		}
		ch := c.choose(md, km.starpuFlops)
		if len(ch) == 0 {
			why := fmt.Sprintf("%s: no CUDA entry (device type 1) with flops %.6e ± %g %% (%s) for CUDA0..CUDA%d; entries have flops %s",
				r.path(rel), km.starpuFlops, starpuFlopsTol*100, km.shape, c.CUDA-1, flopsList(md))
			if km.kernel == "gemm" && !codelets {
				return errors.New(why + "; give the task shape with --tile and --z")
			}
			c.Missing = append(c.Missing, fmt.Sprintf("%s: no CUDA entry with %.6e flops (%s) in %s", km.kernel, km.starpuFlops, km.shape, rel))
			continue
		}
		res := starpuKernelResult{Map: km, Rel: rel, Choices: ch, MeanUS: meanUS(ch)}
		res.GFlops = km.flops / (res.MeanUS * 1e-6) / 1e9
		for _, a := range km.also {
			amd, arel, ok, err := load(a.symbol)
			if err != nil {
				return err
			}
			al := starpuAlso{Map: a, Rel: arel}
			if !ok {
				al.Note = "no " + arel
			} else if al.Choices = c.choose(amd, a.starpuFlops); len(al.Choices) == 0 {
				al.Note = fmt.Sprintf("no CUDA entry with %.6e flops in %s", a.starpuFlops, arel)
			} else {
				al.MeanUS = meanUS(al.Choices)
			}
			res.Also = append(res.Also, al)
		}
		c.Kernels = append(c.Kernels, res)
	}
	return c.readCodelets(r)
}

// starpuCodeletKernel is a kernel of an imported task graph: a codelet's
// symbol and the shapes (footprints) its tasks have.
type starpuCodeletKernel struct {
	Kernel string
	Rel    string // the model file ("" when absent)
	Shapes []starpuCodeletShape
	GFlops float64 // the rate: the shapes' flops over their mean durations
	US     float64 // with Seconds: a kernel of one shape without flops
}

type starpuCodeletShape struct {
	workloads.StarPUCodelet
	Choices  []starpuChoice // per CUDA device with an entry for the footprint
	Recorded bool           // no entry: every device takes the recorded mean
	MeanUS   float64        // over the devices
}

// readCodelets reads the model of each codelet of Opt.Codelets.
func (c *StarPUImport) readCodelets(r *starpuReader) error {
	byKernel := map[string]int{}
	for _, cd := range c.Opt.Codelets {
		k, ok := byKernel[cd.Kernel]
		if !ok {
			k = len(c.Codelets)
			byKernel[cd.Kernel] = k
			c.Codelets = append(c.Codelets, starpuCodeletKernel{Kernel: cd.Kernel})
		}
		ck := &c.Codelets[k]
		sh := starpuCodeletShape{StarPUCodelet: cd}
		var md *starpuModel
		if cd.HasModel {
			var err error
			var ok bool
			if md, ck.Rel, ok, err = c.loadModel(r, cd.Kernel); err != nil {
				return err
			} else if !ok {
				md, ck.Rel = nil, ""
			}
		}
		if md != nil {
			for g := range c.CUDA {
				var best *starpuEntry
				for i, e := range md.entries {
					fp, _ := strconv.ParseUint(e.Footprint, 16, 32)
					if e.oneDevice && e.DevType == 1 && e.DevID == g && uint32(fp) == cd.Footprint && e.N > 0 && e.Mean > 0 && (best == nil || e.N > best.N) {
						best = &md.entries[i]
					}
				}
				if best != nil {
					sh.Choices = append(sh.Choices, starpuChoice{Dev: g, Entry: *best})
				}
			}
		}
		switch {
		case len(sh.Choices) > 0:
			sh.MeanUS = meanUS(sh.Choices)
		case cd.RecordedUS > 0:
			sh.Recorded, sh.MeanUS = true, cd.RecordedUS
		default:
			where := "no model file codelets/45/" + cd.Kernel + "." + c.Host
			if md != nil {
				where = fmt.Sprintf("no CUDA entry for footprint %08x in %s", cd.Footprint, ck.Rel)
			}
			return fmt.Errorf("%s: kernel %s (%d tasks): %s, and the tasks record no times", r.dir, cd.Kernel, cd.Tasks, where)
		}
		for _, o := range ck.Shapes {
			if cd.Flops == 0 || math.Abs(o.Flops-cd.Flops) <= starpuFlopsTol*max(o.Flops, cd.Flops) {
				return fmt.Errorf("kernel %s: footprints %08x and %08x have %g and %g flops: memsched tells a kernel's shapes apart by their flops (within %g %%), so it cannot give them their own durations",
					cd.Kernel, o.Footprint, cd.Footprint, o.Flops, cd.Flops, starpuFlopsTol*100)
			}
		}
		ck.Shapes = append(ck.Shapes, sh)
	}
	for k := range c.Codelets {
		ck := &c.Codelets[k]
		var fl, us float64
		for _, sh := range ck.Shapes {
			fl += sh.Flops
			us += sh.MeanUS
		}
		if fl == 0 {
			ck.US = us
		} else {
			ck.GFlops = fl / (us * 1e-6) / 1e9
		}
	}
	return nil
}

// writeCodelets writes the kernels of an imported task graph.
func (c *StarPUImport) writeCodelets(p func(string, ...any)) {
	if len(c.Codelets) == 0 {
		return
	}
	p("# Kernels of the imported task graph (memsched calibrate --starpu-tasks): one per codelet symbol, its\n")
	p("# history one shape per footprint the tasks have (the tasks' flops, GFlop × 1e9), each CUDA device's\n")
	p("# model mean for that footprint, or the tasks' recorded mean where the model has none (starpu_replay's\n")
	p("# fallback to EndTime - StartTime).\n")
	for _, ck := range c.Codelets {
		key := ck.Kernel
		if strings.ContainsFunc(key, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		}) {
			key = strconv.Quote(key)
		}
		p("[kernel.%s]\n", key)
		src := ck.Rel
		if src == "" {
			src = "the tasks' recorded durations"
		}
		if ck.US > 0 {
			p("seconds = %s  # source: %s, the tasks have no GFlop: every task takes the mean over the devices (%.2f µs)\n", strconv.FormatFloat(ck.US*1e-6, 'g', -1, 64), src, ck.US)
			continue
		}
		p("gflops = %.6g  # the shapes' flops over their mean durations (µs, over the devices with an entry): a GPU without an entry and a task of no listed shape take it\n", ck.GFlops)
		p("history = [  # source: %s\n", src)
		for _, sh := range ck.Shapes {
			us := make([]string, c.CUDA)
			var lines []string
			for g := range us {
				us[g] = "0"
				if sh.Recorded {
					us[g] = strconv.FormatFloat(sh.MeanUS, 'g', -1, 64)
				}
			}
			for _, x := range sh.Choices {
				us[x.Dev] = strconv.FormatFloat(x.Entry.Mean, 'g', -1, 64)
				lines = append(lines, fmt.Sprintf("CUDA%d line %d (n %d)", x.Dev, x.Entry.Line, x.Entry.N))
			}
			from := strings.Join(lines, ", ")
			if sh.Recorded {
				from = fmt.Sprintf("no model entry: the recorded mean of %d tasks", sh.Tasks)
			}
			p("  {flops = %s, gpu_us = [%s]},  # footprint %08x, %d tasks (recorded mean %.3f µs): %s\n",
				strconv.FormatFloat(sh.Flops, 'g', -1, 64), strings.Join(us, ", "), sh.Footprint, sh.Tasks, sh.RecordedUS, from)
		}
		p("]\n")
	}
}

func flopsList(md *starpuModel) string {
	var fl []string
	for _, e := range md.entries {
		s := "unknown"
		if e.hasFlops && !math.IsNaN(e.Flops) {
			s = fmt.Sprintf("%.6e", e.Flops)
		}
		s += fmt.Sprintf(" (line %d)", e.Line)
		if !slices.Contains(fl, s) {
			fl = append(fl, s)
		}
	}
	if len(fl) == 0 {
		return "none (no entry)"
	}
	if len(fl) > 8 {
		fl = append(fl[:8], "...")
	}
	return strings.Join(fl, ", ")
}

// devList names devices compactly: "CUDA0-3" or "CUDA0, CUDA2".
func devList(devs []int) string {
	if len(devs) == 0 {
		return "none"
	}
	consecutive := true
	for i := 1; i < len(devs); i++ {
		consecutive = consecutive && devs[i] == devs[i-1]+1
	}
	if consecutive && len(devs) > 2 {
		return fmt.Sprintf("CUDA%d-%d", devs[0], devs[len(devs)-1])
	}
	var s []string
	for _, d := range devs {
		s = append(s, fmt.Sprintf("CUDA%d", d))
	}
	return strings.Join(s, ", ")
}

func statsOf(v []float64) (mean, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		mean += x
		lo, hi = min(lo, x), max(hi, x)
	}
	return mean / float64(len(v)), lo, hi
}

// TOML renders the import as a platform preset, every number with the file
// (and row/column, link or footprint) it comes from.
func (c *StarPUImport) TOML() []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	n, o := c.CUDA, c.Opt
	bwf, latf, cfg, xf := c.bus("bandwidth"), c.bus("latency"), c.bus("config"), c.XMLFile

	p("# %s: the %d CUDA devices of StarPU host %s as StarPU's SimGrid mode sees them, imported by\n", o.Name, n, c.Host)
	p("# `memsched calibrate --from-starpu` from StarPU's calibration files (a sampling directory: bus/, codelets/%d/).\n", starpuModelVersion)
	p("# Files read (SHA-256, first 16 hex digits):\n")
	for _, f := range c.Files {
		p("#   %s %s\n", f.Rel, f.SHA)
	}
	p("# Units: GB/s are 1e9 bytes per second (StarPU's bus files give MB/s: bytes per µs, 1e6 bytes/s);\n")
	p("# memory is in MiB (the papers' \"MB\"). Nothing here is fitted: this preset is what SimGrid sees (no\n")
	p("# fitted file; sched_cost none, strided_gbps 0, duration_cv 0).\n")
	// Latencies: memsched has no per-transfer latency; cited only.
	var down, up, nvl, pci []float64
	for g := 1; g <= n; g++ {
		down, up = append(down, c.Lat[0][g]), append(up, c.Lat[g][0])
		for h := 1; h <= n; h++ {
			if g != h && c.nvlinks(g-1, h-1) > 0 {
				nvl = append(nvl, c.Lat[g][h])
			} else if g != h {
				pci = append(pci, c.Lat[g][h])
			}
		}
	}
	p("# Rows and columns below are the bus matrices' node indices (their \"to j\" header): 0 RAM, 1..%d CUDA0..%d.\n", n, n-1)
	p("# Latencies: SimGrid times a copy by its route's latency in %s (the sum of its links'), not by the\n", xf)
	p("# measured %s (RAM->CUDA mean %.2f µs, row 0, columns 1-%d; CUDA->RAM %.2f µs, column 0, rows 1-%d", latf, mean(down), n, mean(up), n)
	if len(nvl) > 0 {
		p("; GPU->GPU over NVLink %.2f µs", mean(nvl))
	}
	if len(pci) > 0 {
		p(", over PCIe %.2f µs", mean(pci))
	}
	p("): see copy_latency_us.\n\n")

	p("[platform]\n")
	p("name        = %s\n", strconv.Quote(o.Name))
	p("description = %s\n", strconv.Quote(fmt.Sprintf("StarPU SimGrid calibration of host %s: %d CUDA devices (memsched calibrate --from-starpu)", c.Host, n)))
	p("max_gpus    = %d  # source: %s line %d \"Number of CUDA devices\"", n, cfg, c.configLine["Number of CUDA devices"])
	if l, ok := c.configLine["Number of CPUs"]; ok {
		p("; its %d CPUs (line %d) are not workers here (the papers' scripts run STARPU_NCPU=0)", c.CPUs, l)
	}
	p("\n")
	memMin := slices.Min(c.MemBytes)
	memNote := fmt.Sprintf("%d bytes", memMin)
	if memMin != slices.Max(c.MemBytes) {
		memNote = fmt.Sprintf("min over GPUs, %d bytes (max %d)", memMin, slices.Max(c.MemBytes))
	}
	p("physical_memory_mib = %d  # source: %s <host id=\"CUDA0\"..\"CUDA%d\"> prop memsize = %s, floored to MiB\n", memMin/MiB, xf, n-1, memNote)
	why := "the papers' STARPU_LIMIT_CUDA_MEM=500, calibrate's default"
	if o.MemoryMiB != 500 {
		why = "calibrate --memory-mb"
	}
	p("memory_mib  = %g  # source: %s; runs override it with --memory-mb\n\n", o.MemoryMiB, why)

	// Links.
	var h2d, d2h []float64
	for g := 1; g <= n; g++ {
		h2d, d2h = append(h2d, c.BW[0][g]), append(d2h, c.BW[g][0])
	}
	h2dMean, h2dMin, h2dMax := statsOf(h2d)
	d2hMean, d2hMin, d2hMax := statsOf(d2h)
	gpuGBps := h2dMean / 1000
	p("# PCIe: memsched's tree (GPU link, switch, NUMA node) with the sharing of the SimGrid platform's\n")
	p("# RAM->CUDA routes (%s). Each direction has its own links in memsched.\n", xf)
	p("[topology]\n")
	p("gpu_link_gbps     = %.3f  # source: %s row 0 (RAM, line %d), columns 1-%d (CUDA0-%d): RAM->CUDA, mean over GPUs %.1f MB/s (min %.1f, max %.1f); the CUDA->RAM direction (column 0, rows 1-%d: mean %.1f MB/s, min %.1f, max %.1f) cannot be set apart: memsched's GPU->RAM copies use this bandwidth too\n",
		gpuGBps, bwf, c.bwLines[0], n, n-1, h2dMean, h2dMin, h2dMax, n, d2hMean, d2hMin, d2hMax)
	p("gpu_link_gbps_each = [")
	for g := 1; g <= n; g++ {
		if g > 1 {
			p(", ")
		}
		p("%.4f", c.BW[0][g]/1000)
	}
	p("]  # source: %s row 0 (RAM, line %d), columns 1-%d: each GPU's RAM->CUDA bandwidth (the link \"RAM-CUDAi\" of each route in %s), used in place of gpu_link_gbps\n", bwf, c.bwLines[0], n, xf)
	t := c.tree
	switch {
	case t.note != "":
		p("gpus_per_switch   = 1  # source: %s: %s; no PCIe sharing below the host link modelled\n", xf, t.note)
		p("switch_link_gbps  = %.3f  # = gpu_link_gbps, not binding (see gpus_per_switch)\n", gpuGBps)
	case t.switchSize > 1:
		p("gpus_per_switch   = %d  # source: %s routes RAM->CUDA0..%d: the smallest aligned group of GPUs whose routes share a PCIe link (%d links shared by 2 to %d GPUs)\n", t.switchSize, xf, n-1, t.switchLinks, n-1)
		p("switch_link_gbps  = %.3f  # source: %s link %q bandwidth %.0f Bps, the slowest link shared by 2 to %d GPUs (the tree's levels collapsed onto one)\n", t.switchGBps/1e9, xf, t.switchLink, t.switchGBps, n-1)
	default:
		p("gpus_per_switch   = 1  # source: %s routes RAM->CUDA0..%d: no PCIe link is shared by some GPUs but not all\n", xf, n-1)
		p("switch_link_gbps  = %.3f  # = gpu_link_gbps, not binding (no switch level)\n", gpuGBps)
	}
	if l, ok := c.configLine["Number of NUMA nodes"]; ok {
		p("gpus_per_numa     = %d  # source: %s line %d: %d NUMA node(s); every GPU is on the RAM node of the bus matrices (node 0), where data live\n", n, cfg, l, c.NUMANodes)
	} else {
		p("gpus_per_numa     = %d  # source: %s gives no NUMA count; every GPU is on the RAM node of the bus matrices (node 0), where data live\n", n, cfg)
	}
	if t.allGBps > 0 {
		both := "on every GPU's RAM->CUDA route"
		if t.allBothWays {
			both = "on every GPU's RAM->CUDA and CUDA->RAM route: SimGrid shares it between both directions, memsched gives each direction its own"
		}
		p("numa_link_gbps    = %.3f  # source: %s link %q bandwidth %.0f Bps, %s\n", t.allGBps/1e9, xf, t.allLink, t.allGBps, both)
		p("inter_numa_gbps   = %.3f  # unused: gpus_per_numa = max_gpus; = numa_link_gbps\n", t.allGBps/1e9)
	} else {
		why := "no link is on every RAM->CUDA route"
		if t.note != "" {
			why = t.note
		}
		p("numa_link_gbps    = %.3f  # source: %s: %s; not binding (max_gpus x the fastest RAM->CUDA bandwidth)\n", float64(n)*h2dMax/1000, xf, why)
		p("inter_numa_gbps   = %.3f  # unused: gpus_per_numa = max_gpus; = numa_link_gbps\n", float64(n)*h2dMax/1000)
	}

	// NVLink.
	single := c.single
	lim := starpuNVLinkFactor * c.pcieMax
	type pair struct {
		a, b, links int
		ab, ba      float64
	}
	var pairs []pair
	var ones, pcie []float64
	for a := range n {
		for bb := a + 1; bb < n; bb++ {
			if k := c.nvlinks(a, bb); k > 0 {
				pairs = append(pairs, pair{a, bb, k, c.BW[1+a][1+bb], c.BW[1+bb][1+a]})
				if k == 1 {
					ones = append(ones, c.BW[1+a][1+bb], c.BW[1+bb][1+a])
				}
			} else {
				pcie = append(pcie, c.BW[1+a][1+bb], c.BW[1+bb][1+a])
			}
		}
	}
	peer := "every <host id=\"CUDAi\"> has prop memcpy_peer = 1: StarPU copies between GPUs directly"
	switch {
	case len(pairs) == 0:
		p("nvlink            = false  # source: %s rows and columns 1-%d: no GPU pair above %.1f MB/s (%.1fx the fastest RAM<->GPU bandwidth): no NVLink\n", bwf, n, lim, starpuNVLinkFactor)
	case !c.MemcpyPeer:
		p("nvlink            = false  # source: %s: not every CUDA host has prop memcpy_peer = 1, so StarPU copies between GPUs through RAM; %d pairs are above PCIe bandwidth in %s\n", xf, len(pairs), bwf)
	default:
		p("nvlink            = true  # source: %s: %s; %s: %d GPU pairs above %.1f MB/s (%.1fx the fastest RAM<->GPU bandwidth) are NVLink\n", xf, peer, bwf, len(pairs), lim, starpuNVLinkFactor)
	}
	if len(pairs) > 0 {
		om, olo, ohi := statsOf(ones)
		p("nvlink_gbps       = %.3f  # source: %s: mean over the 1-link pairs of both directions (%d values, %.1f-%.1f MB/s); a pair has round(bandwidth / %.1f MB/s, its slowest NVLink pair's mean of both directions) links\n",
			om/1000, bwf, len(ones), olo, ohi, single)
		p("nvlink_pairs = [  # source: %s, GPU a's row and b's column and back (MB/s)\n", bwf)
		for _, pr := range pairs {
			p("  [%d, %d, %d],  # CUDA%d->CUDA%d %.1f (row %d, column %d), CUDA%d->CUDA%d %.1f (row %d, column %d)\n",
				pr.a, pr.b, pr.links, pr.a, pr.b, pr.ab, 1+pr.a, 1+pr.b, pr.b, pr.a, pr.ba, 1+pr.b, 1+pr.a)
		}
		p("]\n")
		if len(pcie) > 0 {
			pm, plo, phi := statsOf(pcie)
			p("# Pairs not listed have no NVLink: %.1f-%.1f MB/s (mean %.1f), PCIe level; memsched routes their peer copies\n", plo, phi, pm)
			p("# up and down the PCIe tree through their closest common switch")
			if t.peerSeen > 0 && t.allLink != "" {
				p(" (SimGrid: %d of the %d such routes in %s cross the host link %q)", t.peerCrossesAll, t.peerSeen, xf, t.allLink)
			}
			p(".\n")
		}
	} else {
		p("nvlink_gbps       = 0  # no NVLink (see nvlink)\n")
	}
	p("strided_gbps      = 0  # source: SimGrid times a copy by its size over the route's links (src/core/simgrid.c); no cap on strided copies\n")
	p("serial_peer_copies = true  # source: StarPU's src/core/simgrid.c transfers_are_sequential: a GPU->GPU copy is sequential with every copy into either GPU (\"GPU-GPU transfers are sequential with any RAM->GPU transfer\", observed with CUDA); copies into one GPU are sequential in memsched anyway\n")
	if t.nvlinkRoutes > 0 && t.nvlinkOverPCI == t.nvlinkRoutes && c.MemcpyPeer {
		p("nvlink_over_pcie = true  # source: %s: each of the %d routes CUDAi->CUDAj of an NVLink pair crosses its link CUDAi-CUDAj and the PCI links between the two GPUs (StarPU's src/core/perfmodel/perfmodel_bus.c write_bus_platform_file: the link, then emit_platform_path_up through the hwloc tree; its TODO \"use libnvml to get NVLink links, otherwise numbers will be bogusly propagated through PCI topology\"): peer copies out of one GPU share its port, and one into a GPU under another switch shares that switch's link with the copies from RAM\n", xf, t.nvlinkRoutes)
	} else if t.nvlinkRoutes > 0 {
		p("nvlink_over_pcie = false  # source: %s: %d of the %d routes CUDAi->CUDAj of an NVLink pair cross PCI links besides their own\n", xf, t.nvlinkOverPCI, t.nvlinkRoutes)
	}
	if t.portLink != "" {
		p("gpu_port_gbps = %.3f  # source: %s link %q bandwidth %.0f Bps, the slowest of the links on one GPU's routes to and from RAM alone (each GPU's PCI device, up and down), besides RAM-CUDAi and CUDAi-RAM\n", t.portGBps/1e9, xf, t.portLink, t.portGBps)
	}
	busMatrix := func(key, unit, file string, m [][]float64, lines []int) {
		p("%s = [  # source: %s rows 0-%d (lines %d-%d), columns 0-%d (row: from, column: to; 0 RAM, 1+i CUDAi; %s): StarPU chooses a copy's source by them (datawizard/coherency.c _starpu_select_src_node, perfmodel_bus.c starpu_transfer_predict), not by the platform's links\n", key, file, c.CUDA, lines[0], lines[len(lines)-1], c.CUDA, unit)
		for i, row := range m {
			p("  [")
			for j, v := range row {
				if j > 0 {
					p(", ")
				}
				p("%g", v)
			}
			p("],  # from %s (line %d)\n", c.nodeName(i), lines[i])
		}
		p("]\n")
	}
	if c.MemcpyPeer && len(pairs) > 0 {
		busMatrix("bus_mbps", "MB/s", bwf, c.BW, c.bwLines)
		busMatrix("bus_latency_us", "µs", latf, c.Lat, c.latLines)
	}
	if c.RouteLat == nil {
		p("# copy_latency_us not written: %s: %s.\n\n", xf, c.routeNote)
	} else {
		p("copy_latency_us = [  # source: %s: each route's latency, the sum of its links' (row: from, column: to; 0 RAM, 1+i CUDAi); a copy shares no bandwidth before it, then shares in inverse proportion to it (SimGrid's CM02 model: sharing penalty = latency, network/weight-S = 0 in the file's config)\n", xf)
		for i, row := range c.RouteLat {
			p("  [")
			for j, v := range row {
				if j > 0 {
					p(", ")
				}
				p("%g", v)
			}
			p("],  # from %s\n", c.nodeName(i))
		}
		p("]\n\n")
	}

	p("# Kernels: SimGrid gives a task the history mean (µs) of its shape on its own CUDA device\n")
	p("# (src/core/simgrid.c _starpu_simgrid_submit_job: no variance; one model per device), the entry matched\n")
	p("# by its flops (±%g %%), the footprint with the most samples. history lists those means per GPU for\n", starpuFlopsTol*100)
	p("# the shapes of the codelet (0: the device has no entry); the rate is the kernel's shape averaged over\n")
	p("# the devices with an entry, for a GPU without one and for other shapes (which scale with their flops).\n")
	for _, k := range c.Kernels {
		var devs []int
		var per []string
		for _, ch := range k.Choices {
			devs = append(devs, ch.Dev)
			per = append(per, fmt.Sprintf("CUDA%d %.2f (n %d, line %d)", ch.Dev, ch.Entry.Mean, ch.Entry.N, ch.Entry.Line))
		}
		fp := k.Choices[0].Entry
		p("[kernel.%s]\n", k.Map.kernel)
		p("gflops = %.6g  # source: %s footprint %s (size %d bytes, %.6e flops), the %s: mean µs %s -> %.2f µs over %s; codelet: %s",
			k.GFlops, k.Rel, fp.Footprint, fp.Size, fp.Flops, k.Map.shape, strings.Join(per, ", "), k.MeanUS, devList(devs), k.Map.why)
		if k.Map.flops != k.Map.starpuFlops || math.Abs(fp.Flops-k.Map.flops) > 1e-9*k.Map.flops {
			p("; memsched's task counts %.6e flops", k.Map.flops)
		}
		if len(devs) < n {
			var none []int
			for g := range n {
				if !slices.Contains(devs, g) {
					none = append(none, g)
				}
			}
			p("; no entry for %s (StarPU keeps one model per CUDA device, perfmodel_history.c ignore_devid = 0: SimGrid has no duration for the task there), given this rate", devList(none))
		}
		p("\n")
		c.writeHistory(p, k)
		var others []string
		for _, ch := range k.Choices {
			for _, e := range ch.Others {
				others = append(others, fmt.Sprintf("CUDA%d footprint %s (size %d) %.2f µs (n %d, line %d)", ch.Dev, e.Footprint, e.Size, e.Mean, e.N, e.Line))
			}
		}
		if len(others) > 0 {
			p("# Other footprints of the same flops, not used: %s.\n", strings.Join(others, "; "))
		}
		for _, a := range k.Also {
			if a.Note != "" {
				p("# %s (%s): %s.\n", a.Map.shape, a.Map.symbol, a.Note)
				continue
			}
			var devs []int
			for _, ch := range a.Choices {
				devs = append(devs, ch.Dev)
			}
			at := a.Map.flops / (k.GFlops * 1e9) * 1e6
			if a.Map.symbol == k.Map.symbol {
				p("# %s: %s footprint %s mean %.2f µs over %s = %.1f GFlop/s, in history (the rate would give it %.2f µs, %+.1f %%).\n",
					a.Map.shape, a.Rel, a.Choices[0].Entry.Footprint, a.MeanUS, devList(devs), a.Map.flops/(a.MeanUS*1e-6)/1e9, at, (at/a.MeanUS-1)*100)
				continue
			}
			p("# %s: %s footprint %s mean %.2f µs over %s = %.1f GFlop/s; not in history (another codelet: memsched's gemm tasks of that shape take the %s codelet's entry); the rate gives it %.2f µs (%+.1f %%).\n",
				a.Map.shape, a.Rel, a.Choices[0].Entry.Footprint, a.MeanUS, devList(devs), a.Map.flops/(a.MeanUS*1e-6)/1e9, k.Map.symbol, at, (at/a.MeanUS-1)*100)
		}
	}
	c.writeCodelets(p)
	for _, m := range c.Missing {
		p("# Not written: %s; a workload using it does not run on this platform.\n", m)
	}
	p("# Not written: getrf (no StarPU model is mapped to it: the LU example's models are not imported); LU does not run on this platform.\n\n")

	p("# StarPU runtime settings of the papers' SimGrid runs, and the memory manager's behaviour (as in\n")
	p("# v100-gemini, without its fitted values).\n")
	p("[runtime]\n")
	p("buffer   = 10  # source: the authors' scripts (StarPU papers/ICPP2023 Scripts_maxime/HFP.sh, dynamic_data_aware.sh): TH=10, STARPU_NTASKS_THRESHOLD=$((TH))\n")
	p("pipeline = 5   # source: the same scripts: CP=5, STARPU_CUDA_PIPELINE=$((CP))\n")
	p("pop_while_fetching = false  # source: src/core/sched_policy.c _starpu_get_multi_worker_task: \"don't push a task if we are already transferring one\" (one task fetches at a time)\n")
	p("reprefetch         = false  # source: src/datawizard/coherency.c starpu_prefetch_task_input_for is called once, at push; eviction (memalloc.c) issues no new request\n")
	p("touch_at_start     = false  # source: coherency.c _starpu_create_request_to_fetch_data calls _starpu_memchunk_recently_used when a fetch or prefetch finds the data; memalloc.c register_mem_chunk appends at allocation\n")
	p("reclaim_factor     = 2      # source: memalloc.c starpu_memstrategy_data_size_coefficient=2: _starpu_allocate_interface reclaims 2x the size in mc_list (LRU) order\n")
	p("reuse_same_size    = true   # source: StarPU at papers/ICPP2023, memalloc.c _starpu_allocate_interface: a request that finds memory full takes over one LRU chunk of the same allocation footprint (try_to_reuse_potentially_in_use_mc) before any 2x reclaim; the matrix interface hashes only the allocation size (matrix_interface.c alloc_footprint_matrix_interface_crc32)\n")
	p("alloc_sync         = \"none\" # source: the scripts set STARPU_SIMGRID_CUDA_MALLOC_COST=0 (Scripts_maxime/HFP.sh): SimGrid charges nothing for device allocation\n")
	p("just_in_time       = false  # source: data_request.c __starpu_handle_node_data_requests: a request allocates when handled and queues its copy (simgrid.c transfer_queue: one copy at a time per pair of nodes)\n")
	p("fetch_requests     = 5      # source: data_request.h MAX_PENDING_REQUESTS_PER_NODE at papers/ICPP2023 (5 since February 2021, 20 before)\n")
	p("prefetch_requests  = 2      # source: data_request.h MAX_PENDING_PREFETCH_REQUESTS_PER_NODE at papers/ICPP2023 (2 since February 2021, 10 before)\n")
	p("prefetch_at_buffer = false  # source: component_fifo.c fifo_push_local_task prefetches each task pushed into a FIFO whose workers share one memory node (starpu_sched_component_prefetch_on_node)\n")
	p("evict_prefetched   = false  # source: memalloc.c starpu_data_can_evict: a prefetch never evicts data whose nb_tasks_prefetch is not 0\n")
	p("loading_from_copy  = false  # source: data_request.c starpu_handle_data_request sets the replicate's load_request before allocating and keeps it on -ENOMEM; user_interactions.c starpu_data_query_status2: is_loading = load_request != NULL: a datum is loading (and allocated) from when its request is handled, even a request that found no memory\n")
	p("duration_cv        = 0      # source: SimGrid gives every task its footprint's history mean (src/core/simgrid.c: \"TODO: option to add variance\")\n")
	p("flush_in_makespan  = false  # source: the papers' benchmarks stop the clock at starpu_task_wait_for_all and unregister the data afterwards (examples/mult/xgemm.c)\n")
	p("sched_cost         = \"none\" # source: STARPU_SIMGRID_SCHED_COST unset in the scripts (src/core/simgrid.h: default 0): scheduling takes no simulated time\n")
	p("op_seconds         = 0      # unused with sched_cost none\n")
	p("array_op_seconds   = 0      # unused with sched_cost none\n")
	p("status_op_seconds  = 0      # unused with sched_cost none\n")
	p("predict_op_seconds = 0      # unused with sched_cost none\n")
	p("belady_op_seconds  = 0      # unused with sched_cost none\n")
	p("status_written_op_seconds = 0 # unused with sched_cost none\n")
	p("program_run_seconds = 0 # unused with sched_cost none\n")
	p("source_at_copy     = false  # source: coherency.c _starpu_create_request_to_fetch_data chooses a request's source when it creates it (_starpu_select_src_node, among the copies valid then)\n")
	p("requests_per_node  = false  # source: data_request.c counts pending requests per pair of nodes (data_requests_npending[handling_node][peer_node][inout])\n")
	p("node_after_node    = false  # source: the CUDA workers are SimGrid actors that pull in turn, one task each (driver_cuda.c _starpu_cuda_worker, component_fifo.c fifo_pull_task, component_eager.c eager_can_push)\n")
	p("pop_before_progress = false # source: driver_cuda.c _starpu_cuda_driver_run_once handles the node's data requests (__starpu_datawizard_progress) before it pops (_starpu_get_multi_worker_task)\n")
	p("lock_free = false # source: coherency.c _starpu_fetch_data_on_node spins on a datum's header lock (_starpu_spin_trylock, _starpu_datawizard_progress) while the worker that last requested it holds it across _starpu_post_data_request, a SimGrid simcall: the others wait for their turn\n")
	p("pop_at_once = false # source: driver_cuda.c _starpu_cuda_driver_run_once pops at most one task per iteration (_starpu_get_multi_worker_task), after handling the node's requests; component_fifo.c fifo_pull_task lets the scheduler refill the freed place first\n")
	p("spin_free = false # source: data_request.c _handle_pending_node_data_requests takes a handle's header lock with _starpu_spin_lock in SimGrid mode, which sleeps 1 µs each time it finds the lock taken (common/thread.h _starpu_pthread_spin_lock: starpu_sleep(0.000001)), held across the completion's simcalls: the drivers whose copies of one datum end at one instant handle them 1 µs apart\n")
	p("pop_during_driver_time = false # source: each CUDA worker is a SimGrid actor that sleeps its host costs (coherency.c _starpu_fetch_task_input, simgrid.c _starpu_simgrid_submit_job) and pops again in its next driver_cuda.c _starpu_cuda_driver_run_once\n")
	p("lru_at_load        = false  # source: memalloc.c register_mem_chunk appends a chunk to mc_list when a request allocates it, before its copy; a chunk in flight is never a victim\n")
	p("copy_issue_us      = 10     # source: src/core/simgrid.c _starpu_simgrid_transfer: \"Sleep 10µs for the GPU transfer queueing\" before each copy (STARPU_SIMGRID_QUEUE_MALLOC_COST, default 1; the scripts leave it)\n")
	p("task_issue_us      = 10     # source: src/core/simgrid.c _starpu_simgrid_submit_job: \"Sleep 10µs for the GPU task queueing\" before queueing each kernel (the same variable)\n")
	p("fetch_input_us     = 1      # source: src/datawizard/coherency.c _starpu_fetch_task_input: 1 µs after requesting each input of a popped task (STARPU_SIMGRID_FETCHING_INPUT_COST, default 1)\n")
	p("progress_us        = 0      # StarPU's value is 1 (src/datawizard/datawizard.c ___starpu_datawizard_progress sleeps 1 µs per call in SimGrid, \"XXX\", made for every memory node the worker drives, __starpu_datawizard_progress; a CUDA worker drives its GPU and every NUMA node, src/core/topology.c _starpu_init_workers_binding: 2 µs per driver iteration here); > 0 also runs the GPU driver's iteration in src/drivers/cuda/driver_cuda.c _starpu_cuda_driver_run_once's order (launch, request handling with its sleeps and the copies that ended, then the pop once the last popped task is launched; model 16). Held at 0: on the 8 peer suites it reaches StarPU's loads at 434 of 471 points (430 at 0: 2d-memory HFP 100 MB 593 -> 624 = StarPU, 1-GPU EAGER/DMDA/DMDAR +0.4 -> +0.1 %%), but multi-GPU DARTS+LUF MAPE 0.78 -> 1.20 %% (3d-4gpu N = 20 -3.4 -> -14.1 %%, 2d-4gpu DARTS N = 10 -5.8 -> -14.7 %%) and DARTS+LUF-3inputs 2.61 -> 2.98 %%\n")
	return b.Bytes()
}

// writeHistory writes a kernel's history: its own shape and the other
// shapes of the same codelet, each with its mean per CUDA device. Shapes of
// another codelet (the Cholesky gemm of chol_model_22) stay in comments:
// memsched names kernels, not codelets, so a gemm task of that shape takes
// the first codelet's entry.
func (c *StarPUImport) writeHistory(p func(string, ...any), k starpuKernelResult) {
	row := func(flops float64, ch []starpuChoice, shape string) string {
		us := make([]string, c.CUDA)
		for g := range us {
			us[g] = "0"
		}
		var lines []string
		for _, x := range ch {
			us[x.Dev] = strconv.FormatFloat(x.Entry.Mean, 'g', -1, 64)
			lines = append(lines, strconv.Itoa(x.Entry.Line))
		}
		return fmt.Sprintf("  {flops = %s, gpu_us = [%s]},  # the %s: footprint %s, line %s\n", strconv.FormatFloat(flops, 'g', -1, 64), strings.Join(us, ", "), shape, ch[0].Entry.Footprint, strings.Join(lines, ", "))
	}
	p("history = [  # source: %s, each CUDA device's mean (µs, 0: no entry) for the shape's footprint\n", k.Rel)
	p("%s", row(k.Map.flops, k.Choices, k.Map.shape))
	for _, a := range k.Also {
		if a.Note == "" && a.Map.symbol == k.Map.symbol {
			p("%s", row(a.Map.flops, a.Choices, a.Map.shape))
		}
	}
	p("]\n")
}

func mean(v []float64) float64 {
	m, _, _ := statsOf(v)
	return m
}

// Summary is a few human lines for the terminal.
func (c *StarPUImport) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "StarPU host %s: %d CUDA devices, %.0f MiB each; RAM->GPU %.3f GB/s", c.Host, c.CUDA, float64(slices.Min(c.MemBytes))/MiB, func() float64 {
		var v []float64
		for g := 1; g <= c.CUDA; g++ {
			v = append(v, c.BW[0][g])
		}
		return mean(v) / 1000
	}())
	if c.tree.allGBps > 0 {
		fmt.Fprintf(&b, ", host link %.3f GB/s shared by all", c.tree.allGBps/1e9)
	}
	np := 0
	for a := range c.CUDA {
		for bb := a + 1; bb < c.CUDA; bb++ {
			if c.nvlinks(a, bb) > 0 {
				np++
			}
		}
	}
	fmt.Fprintf(&b, "; %d NVLink pairs\n", np)
	for _, k := range c.Kernels {
		var devs []int
		for _, ch := range k.Choices {
			devs = append(devs, ch.Dev)
		}
		fmt.Fprintf(&b, "  %-6s %8.1f GFlop/s  (%s: %.2f µs, mean over %s)\n", k.Map.kernel, k.GFlops, k.Map.shape, k.MeanUS, devList(devs))
	}
	for _, ck := range c.Codelets {
		for _, sh := range ck.Shapes {
			src := fmt.Sprintf("model mean over %d devices", len(sh.Choices))
			if sh.Recorded {
				src = "recorded mean, no model entry"
			}
			fmt.Fprintf(&b, "  %s footprint %08x: %d tasks, %.2f µs (%s; recorded %.2f µs)\n", ck.Kernel, sh.Footprint, sh.Tasks, sh.MeanUS, src, sh.RecordedUS)
		}
	}
	for _, m := range c.Missing {
		fmt.Fprintf(&b, "  not written: %s\n", m)
	}
	return b.String()
}
