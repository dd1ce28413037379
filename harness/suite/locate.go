package suite

import (
	"regexp"
	"strconv"
	"strings"
)

// locator maps TOML keys to line numbers. The toml decoder keeps key
// positions private, so errors about values (unknown keys, bad values,
// impossible points) find their line by scanning the text: table headers
// ([a.b], [[a]]) and `key =` lines. Multi-line strings that look like keys
// could fool it; suites do not use them.
type locator struct {
	tables map[string]int // "platform", "scheduler#1" -> header line
	keys   map[string]int // "platform.gpus", "scheduler#1.eviction" -> line
}

var (
	arrayHeader = regexp.MustCompile(`^\s*\[\[\s*([^\]]+?)\s*\]\]`)
	tableHeader = regexp.MustCompile(`^\s*\[\s*([^\]]+?)\s*\]`)
	keyLine     = regexp.MustCompile(`^\s*("([^"]+)"|'([^']+)'|[A-Za-z0-9_\-\.]+)\s*=`)
)

func newLocator(text string) *locator {
	l := &locator{tables: map[string]int{}, keys: map[string]int{}}
	counts := map[string]int{}
	section := ""
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		if m := arrayHeader.FindStringSubmatch(line); m != nil {
			name := cleanKey(m[1])
			counts[name]++
			section = tablePath(name, counts[name]-1)
			l.tables[section] = n
			continue
		}
		if m := tableHeader.FindStringSubmatch(line); m != nil {
			name := cleanKey(m[1])
			// A sub-table of the latest array element, e.g. [scheduler.x]
			// after [[scheduler]], belongs to that element.
			for arr, c := range counts {
				if strings.HasPrefix(name, arr+".") {
					name = tablePath(arr, c-1) + name[len(arr):]
				}
			}
			section = name
			l.tables[section] = n
			continue
		}
		if m := keyLine.FindStringSubmatch(line); m != nil {
			key := m[1]
			if m[2] != "" {
				key = m[2]
			} else if m[3] != "" {
				key = m[3]
			}
			full := key
			if section != "" {
				full = section + "." + key
			}
			if _, seen := l.keys[full]; !seen {
				l.keys[full] = n
			}
		}
	}
	return l
}

func cleanKey(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// tablePath names element i of an array of tables.
func tablePath(name string, i int) string {
	return name + "#" + strconv.Itoa(i)
}

// line returns the line of key in table (a path as built by tablePath), or
// the table's header line, or 0 when neither is found.
func (l *locator) line(table, key string) int {
	if key != "" {
		full := key
		if table != "" {
			full = table + "." + key
		}
		if n, ok := l.keys[full]; ok {
			return n
		}
	}
	if n, ok := l.tables[table]; ok {
		return n
	}
	// Keys of a dotted sub-table written inline (kernel = {gemm = ...}) sit
	// on their parent's line.
	if i := strings.LastIndex(table, "."); i > 0 {
		parent, last := table[:i], table[i+1:]
		return l.line(parent, last)
	}
	return 0
}
