//go:build ignore

// Convert rebuilds one week of this directory from the per-job outputs of the
// released batch simulator (GitHub MaximeGonthier/Locality-aware-batch-scheduling,
// commit 6cb69e5, data/Stretch_times_<week>_<scheduler>.csv; written by
// src/print_functions.c print_csv: id, stretch, node-size class, end-start,
// subtime, cores, transfer+wait, user, file, core time, bounded stretch).
//
//	go run convert.go DIR WEEK OUT
//
// reads DIR/Stretch_times_<WEEK>_<scheduler>.csv for the ten schedulers
// (WEEK as the release spells it, e.g. 2022-02-21->2022-02-27) and writes
// OUT/jobs.csv.gz (from the FCFS output) and OUT/outcomes.csv.gz. Run on
// 2022-02-07 and 2022-09-05 it reproduces the files of /work/shared/batch
// byte for byte after decompression; 2022-02-21's outcomes were made with it.
package main

import (
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// The release's scheduler names (Expe2.sh) and the thesis' names.
var schedulers = []struct{ label, file string }{
	{"FCFS", "Fcfs"},
	{"FCFS-BF", "Fcfs_conservativebf"},
	{"EFT", "Fcfs_with_a_score_x1_x0_x0_x0"},
	{"EFT-BF", "Fcfs_with_a_score_conservativebf_x1_x0_x0_x0"},
	{"LEA", "Fcfs_with_a_score_x500_x1_x0_x0"},
	{"LEA-BF", "Fcfs_with_a_score_conservativebf_x500_x1_x0_x0"},
	{"LEO", "Fcfs_with_a_score_adaptative_multiplier_if_EAT_is_t_x500_x1_x0_x0"},
	{"LEO-BF", "Fcfs_with_a_score_adaptative_multiplier_if_EAT_is_t_conservativebf_x500_x1_x0_x0"},
	{"LEM", "Fcfs_with_a_score_mixed_strategy_x500_x1_x0_x0"},
	{"LEM-BF", "Fcfs_with_a_score_mixed_strategy_conservativebf_x500_x1_x0_x0"},
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run convert.go DIR WEEK OUT")
		os.Exit(2)
	}
	dir, week, out := os.Args[1], os.Args[2], os.Args[3]
	var ids []int
	rows := map[string]map[int][]string{}
	for i, s := range schedulers {
		recs, err := readCSV(filepath.Join(dir, "Stretch_times_"+week+"_"+s.file+".csv"))
		check(err)
		m := map[int][]string{}
		for _, r := range recs {
			if len(r) != 11 {
				check(fmt.Errorf("%s: %d columns, want 11", s.file, len(r)))
			}
			id, err := strconv.Atoi(r[0])
			check(err)
			m[id] = r
			if i == 0 {
				ids = append(ids, id)
			}
		}
		rows[s.label] = m
	}
	sort.Ints(ids)
	check(os.MkdirAll(out, 0o755))

	jobs := [][]string{{"job", "submit_s", "cores", "user", "file", "core_seconds"}}
	outcomes := [][]string{{"job"}}
	for _, s := range schedulers {
		outcomes[0] = append(outcomes[0], s.label+"_stretch", s.label+"_run_s", s.label+"_file_wait_s")
	}
	for _, id := range ids {
		f := rows["FCFS"][id]
		jobs = append(jobs, []string{f[0], f[4], f[5], f[7], f[8], f[9]})
		line := []string{f[0]}
		for _, s := range schedulers {
			r, ok := rows[s.label][id]
			if !ok {
				check(fmt.Errorf("job %d missing from %s", id, s.file))
			}
			line = append(line, r[1], r[3], r[6])
		}
		outcomes = append(outcomes, line)
	}
	check(writeGz(filepath.Join(out, "jobs.csv.gz"), jobs))
	check(writeGz(filepath.Join(out, "outcomes.csv.gz"), outcomes))
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return csv.NewReader(f).ReadAll()
}

func writeGz(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := csv.NewWriter(zw)
	w.UseCRLF = true // as the files of /work/shared/batch
	if err := w.WriteAll(rows); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "convert:", err)
		os.Exit(1)
	}
}
