//go:build !(linux && (amd64 || arm64))

package cuda

import (
	"fmt"
	"runtime"
)

// The bindings are only tested where purego is Tier 1 and CUDA ships.
const platformSupported = false

var errPlatform = fmt.Errorf("CUDA bindings are only built for linux/amd64 and linux/arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)

func dlopen(string) (uintptr, error)         { return 0, errPlatform }
func dlsym(uintptr, string) (uintptr, error) { return 0, errPlatform }
func register(any, uintptr)                  { panic(errPlatform) }
