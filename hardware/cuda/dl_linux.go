//go:build linux && (amd64 || arm64)

package cuda

import "github.com/ebitengine/purego"

const platformSupported = true

// RTLD_GLOBAL so that libraries cuBLAS loads later resolve against this
// libcudart instead of loading another copy.
func dlopen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }

func register(fptr any, sym uintptr) { purego.RegisterFunc(fptr, sym) }
