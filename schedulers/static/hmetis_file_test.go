package static

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memsched/memsched/schedulers"
)

// hMETIS+R names its partitioner in its records (harness/run).
var _ schedulers.Partitioned = (*hmetisR)(nil)

func TestReadPartitionFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "input_hMETIS_N2.txt"), []byte("0\n1\n1\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parts, tool, err := readPartitionFile(dir, "matmul2d-n2", 4, 2)
	if err != nil || len(parts) != 4 || parts[1] != 1 || parts[3] != 0 || tool == "" {
		t.Fatalf("parts %v tool %q err %v", parts, tool, err)
	}
	if _, _, err := readPartitionFile(dir, "matmul2d-n2", 5, 2); err == nil {
		t.Error("a file with fewer parts than tasks was accepted")
	}
	if _, _, err := readPartitionFile(dir, "matmul2d-n2", 4, 1); err == nil {
		t.Error("a part beyond the GPUs was accepted")
	}
	if _, _, err := readPartitionFile(dir, "matmul2d-n3", 9, 2); err == nil {
		t.Error("a missing file was accepted")
	}
	big := filepath.Join(t.TempDir(), "input_hMETIS_N2.txt")
	os.WriteFile(big, make([]byte, 200), 0o644)
	if _, _, err := readPartitionFile(filepath.Dir(big), "matmul2d-n2", 4, 2); err == nil {
		t.Error("a file far larger than a partition was read")
	}
	// The authors' file for N = 40 on 2 GPUs splits the inner panels.
	parts, _, err = readPartitionFile("../../paper/reference/hmetis-partitions/2GPU", "matmul2d-n40", 1600, 2)
	if err != nil {
		t.Fatal(err)
	}
	if parts[0] != parts[40] || parts[1] != parts[41] {
		t.Errorf("N = 40: tasks 0 and 40 (or 1 and 41) in different parts")
	}
}
