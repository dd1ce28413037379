//go:build !unix

package filelock

import "os"

// Without flock the lock is a no-op: one writer is the user's care.
func lock(*os.File) error { return nil }
