// Package batch simulates the batch scheduling of thesis chapter 6:
// single-node jobs on a cluster of identical nodes, each job reading one input
// file from a shared file system into its node's memory before it computes.
// A file already on a node is reused by jobs running on that node at the same
// time or right after. The schedulers (schedulers/batch) choose nodes; the
// simulator owns time, the plan of reservations, files and the metrics.
//
// The chapter's text and the released simulator (GitHub
// MaximeGonthier/Locality-aware-batch-scheduling, commit 6cb69e5) differ on
// a few rules; Rules names them, with the two presets "thesis" and
// "release".
package batch

import (
	"fmt"
	"math"
)

// Cluster is the platform: identical nodes linked to the shared file system
// at the same bandwidth.
type Cluster struct {
	Name         string  `json:"name"`
	Nodes        int     `json:"nodes"`
	CoresPerNode int     `json:"cores_per_node"`
	MemoryGB     float64 `json:"memory_gb"`     // per node; file sizes are Cores/CoresPerNode of it
	BandwidthGBs float32 `json:"bandwidth_gbs"` // per node, from the shared file system
}

// Rackham is the UPPMAX cluster of the chapter: 486 nodes of two 10-core
// Xeon V4 (thesis §6.5.1: "9720 cores spread over 486 nodes"), modelled as
// homogeneous nodes of M = 128 GB ("we consider that the platform is made of
// 486 homogeneous nodes of size M = 128 GB"). The thesis does not give the
// bandwidth; the release's cluster file
// (inputs/clusters/cluster_450_128_32_256_4_1024.txt) has "bandwidth: 0.1"
// GB/s for every node, so a 128 GB file loads in 1280 s.
func Rackham() Cluster {
	return Cluster{Name: "rackham", Nodes: 486, CoresPerNode: 20, MemoryGB: 128, BandwidthGBs: 0.1}
}

// Check reports an unusable cluster.
func (c Cluster) Check() error {
	if c.Nodes < 1 || c.Nodes > 1<<nodeBits || c.CoresPerNode < 1 || c.CoresPerNode > 1024 || !(c.MemoryGB > 0 && c.MemoryGB <= math.MaxFloat32) ||
		!(c.BandwidthGBs > 0) || math.IsInf(float64(c.BandwidthGBs), 0) {
		return fmt.Errorf("cluster %q: %d nodes of %d cores, %g GB, %g GB/s: want 1 to 1048576 nodes, 1 to 1024 cores, a finite memory and bandwidth above 0",
			c.Name, c.Nodes, c.CoresPerNode, c.MemoryGB, c.BandwidthGBs)
	}
	return nil
}
