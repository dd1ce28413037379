/*
 * fakecuda.c: a CPU stand-in for the parts of libcudart and libcublas that
 * package memsched/hardware/cuda binds. Built by cuda.BuildFake for tests.
 *
 * Compile with -DFAKE_CUDART for the runtime library and -DFAKE_CUBLAS for
 * the cuBLAS library (linked against the former). FAKE_NS namespaces the
 * hooks cuBLAS calls in the runtime, so two fakes loaded RTLD_GLOBAL into
 * one process cannot bind to each other's state. -DFAKE_CUDA13 leaves out
 * the symbols CUDA 13 dropped and the optional ones, to test fallbacks.
 *
 * Data effects are immediate (malloc/memcpy on the host). Time is either the
 * real monotonic clock or, when any FAKE_CUDA_* rate is set, a virtual clock:
 * each stream, copy direction and device compute engine has a timeline, and
 * an operation starts when its stream, its engine and the host are all ready.
 * See the package comment in doc.go for the environment variables.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef FAKE_NS
#define FAKE_NS main
#endif
#define CAT_(a, b, c) a##b##c
#define CAT(a, b, c) CAT_(a, b, c)
#define HOOK(name) CAT(fakecuda_, FAKE_NS, _##name)

#define EXPORT __attribute__((visibility("default")))

enum { ENG_H2D, ENG_D2H, ENG_COMPUTE };

/* Hooks the runtime exports for the cuBLAS fake. */
EXPORT int HOOK(stream_op)(void *stream, int engine, double ns);
EXPORT int HOOK(dev_range)(const void *p, size_t bytes);

#ifdef FAKE_CUDART

typedef int cudaError_t;
enum {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorInvalidResourceHandle = 400,
};

#define MAX_DEV 16
#define ALIGN 256

struct alloc {
	struct alloc *next;
	char *base; /* what malloc returned */
	char *p;    /* what the caller sees */
	size_t n;
	int dev;    /* -1 for pinned host memory */
};

struct stream {
	struct stream *next;
	int dev;
	int64_t t;
};

struct event {
	struct event *next;
	int dev;
	int recorded;
	int64_t t;
};

struct device {
	size_t used;
	int64_t null_t;    /* legacy default stream */
	int64_t eng[3];    /* H2D, D2H, compute */
	int loaded;        /* cuBLAS's kernels loaded (FAKE_CUDA_LOAD_US) */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int cur_dev; /* like CUDA: the current device is per thread */
static struct device devs[MAX_DEV];
static struct alloc *allocs;
static struct stream *streams;
static struct event *events;
static int64_t host_t; /* virtual time the host has observed */

static double env_num(const char *name, double def)
{
	const char *s = getenv(name);
	if (s == NULL || *s == 0)
		return def;
	return strtod(s, NULL);
}

static int ndevices(void)
{
	int n = (int)env_num("FAKE_CUDA_DEVICES", 1);
	if (n < 0)
		n = 0;
	return n > MAX_DEV ? MAX_DEV : n;
}

static int virtual_mode(void)
{
	return env_num("FAKE_CUDA_VIRTUAL", 0) != 0 ||
	       env_num("FAKE_CUDA_GFLOPS", 0) > 0 ||
	       env_num("FAKE_CUDA_GBPS", 0) > 0 ||
	       env_num("FAKE_CUDA_LAUNCH_US", 0) > 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static struct stream *find_stream(void *s)
{
	for (struct stream *x = streams; x; x = x->next)
		if ((void *)x == s)
			return x;
	return NULL;
}

static struct event *find_event(void *e)
{
	for (struct event *x = events; x; x = x->next)
		if ((void *)x == e)
			return x;
	return NULL;
}

/* find_alloc returns the allocation that holds [p, p+n), or NULL. */
static struct alloc *find_alloc(const void *p, size_t n, int host)
{
	const char *c = p;
	for (struct alloc *a = allocs; a; a = a->next) {
		if ((a->dev < 0) != host)
			continue;
		if (c >= a->p && c <= a->p + a->n && n <= (size_t)(a->p + a->n - c))
			return a;
	}
	return NULL;
}

/* ready is when work queued on s (NULL: the legacy default stream of dev)
 * could start; the default stream waits for every stream of its device. */
static int64_t ready(struct stream *s, int dev)
{
	int64_t t = max64(devs[dev].null_t, host_t);
	if (s != NULL)
		return max64(t, s->t);
	for (struct stream *x = streams; x; x = x->next)
		if (x->dev == dev)
			t = max64(t, x->t);
	return t;
}

static void set_done(struct stream *s, int dev, int64_t t)
{
	if (s != NULL)
		s->t = t;
	else
		devs[dev].null_t = t;
}

/* op advances the timelines for one operation of duration ns. Called with
 * mu held. s == NULL means the default stream of the current device. A
 * cuBLAS kernel's first launch on a device also pays FAKE_CUDA_LOAD_US, as
 * CUDA's lazy module loading (the default since CUDA 12.2) does. */
static cudaError_t op_locked(void *handle, int engine, double ns, int blas)
{
	struct stream *s = NULL;
	int dev = cur_dev;
	if (handle != NULL) {
		s = find_stream(handle);
		if (s == NULL)
			return cudaErrorInvalidResourceHandle;
		dev = s->dev;
	}
	if (!virtual_mode()) {
		set_done(s, dev, mono_ns());
		return cudaSuccess;
	}
	ns += env_num("FAKE_CUDA_LAUNCH_US", 0) * 1000;
	if (blas && !devs[dev].loaded) {
		devs[dev].loaded = 1;
		ns += env_num("FAKE_CUDA_LOAD_US", 0) * 1000;
	}
	int64_t start = max64(ready(s, dev), devs[dev].eng[engine]);
	int64_t end = start + (int64_t)llround(ns);
	devs[dev].eng[engine] = end;
	set_done(s, dev, end);
	return cudaSuccess;
}

static void observe(int64_t t)
{
	if (virtual_mode())
		host_t = max64(host_t, t);
}

EXPORT int HOOK(stream_op)(void *stream, int engine, double ns)
{
	pthread_mutex_lock(&mu);
	int rc = op_locked(stream, engine, ns, 1);
	pthread_mutex_unlock(&mu);
	return rc;
}

EXPORT int HOOK(dev_range)(const void *p, size_t bytes)
{
	pthread_mutex_lock(&mu);
	int ok = find_alloc(p, bytes, 0) != NULL;
	pthread_mutex_unlock(&mu);
	return ok;
}

/* fakecuda_reset zeroes every clock and unloads cuBLAS's kernels, so a
 * test can measure from a clean state; allocations, streams and events stay
 * valid. */
EXPORT void fakecuda_reset(void)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < MAX_DEV; i++) {
		devs[i].null_t = 0;
		memset(devs[i].eng, 0, sizeof devs[i].eng);
		devs[i].loaded = 0;
	}
	for (struct stream *x = streams; x; x = x->next)
		x->t = 0;
	for (struct event *x = events; x; x = x->next)
		x->recorded = 0;
	host_t = 0;
	pthread_mutex_unlock(&mu);
}

EXPORT cudaError_t cudaRuntimeGetVersion(int *v)
{
	if (v == NULL)
		return cudaErrorInvalidValue;
	*v = (int)env_num("FAKE_CUDA_RUNTIME_VERSION", 12080);
	return cudaSuccess;
}

EXPORT cudaError_t cudaDriverGetVersion(int *v)
{
	if (v == NULL)
		return cudaErrorInvalidValue;
	*v = (int)env_num("FAKE_CUDA_DRIVER_VERSION", 13000);
	return cudaSuccess;
}

EXPORT cudaError_t cudaGetDeviceCount(int *n)
{
	if (n == NULL)
		return cudaErrorInvalidValue;
	*n = 0;
	int e = (int)env_num("FAKE_CUDA_INIT_ERROR", 0);
	if (e != 0)
		return e;
	*n = ndevices();
	return *n == 0 ? cudaErrorNoDevice : cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int d)
{
	if (d < 0 || d >= ndevices())
		return cudaErrorInvalidDevice;
	cur_dev = d;
	return cudaSuccess;
}

EXPORT cudaError_t cudaGetDevice(int *d)
{
	if (d == NULL)
		return cudaErrorInvalidValue;
	*d = cur_dev;
	return cudaSuccess;
}

static size_t total_mem(void)
{
	return (size_t)(env_num("FAKE_CUDA_MEM_MIB", 16384) * 1048576.0);
}

/* Only the name (the first 256 bytes) is part of the contract. The rest of
 * the caller's buffer is filled with a pattern, as a wrong struct size would
 * show up as a corrupted Go heap. */
static cudaError_t get_props(void *prop, int d)
{
	if (prop == NULL)
		return cudaErrorInvalidValue;
	if (d < 0 || d >= ndevices())
		return cudaErrorInvalidDevice;
	const char *name = getenv("FAKE_CUDA_NAME");
	if (name == NULL || *name == 0)
		name = "Fake GPU";
	memset(prop, 0, 256);
	snprintf(prop, 256, "%s", name);
	memset((char *)prop + 256, 0xA5, 1008 - 256); /* CUDA 12's size */
	return cudaSuccess;
}

#ifndef FAKE_CUDA13
EXPORT cudaError_t cudaGetDeviceProperties_v2(void *prop, int d)
{
	return get_props(prop, d);
}
#endif

EXPORT cudaError_t cudaGetDeviceProperties(void *prop, int d)
{
	return get_props(prop, d);
}

EXPORT cudaError_t cudaMemGetInfo(size_t *free_, size_t *total)
{
	if (free_ == NULL || total == NULL)
		return cudaErrorInvalidValue;
	pthread_mutex_lock(&mu);
	*total = total_mem();
	*free_ = *total - devs[cur_dev].used;
	pthread_mutex_unlock(&mu);
	return cudaSuccess;
}

#ifndef FAKE_CUDA13
EXPORT cudaError_t cudaDeviceGetAttribute(int *v, int attr, int d)
{
	if (v == NULL)
		return cudaErrorInvalidValue;
	if (d < 0 || d >= ndevices())
		return cudaErrorInvalidDevice;
	switch (attr) {
	case 16: /* cudaDevAttrMultiProcessorCount */
		*v = (int)env_num("FAKE_CUDA_SMS", 132);
		return cudaSuccess;
	case 75: /* cudaDevAttrComputeCapabilityMajor */
		*v = 9;
		return cudaSuccess;
	case 76: /* cudaDevAttrComputeCapabilityMinor */
		*v = 0;
		return cudaSuccess;
	}
	return cudaErrorInvalidValue;
}
#endif

static cudaError_t do_malloc(void **p, size_t n, int dev)
{
	if (p == NULL)
		return cudaErrorInvalidValue;
	*p = NULL;
	if (n == 0)
		return cudaSuccess;
	pthread_mutex_lock(&mu);
	cudaError_t rc = cudaErrorMemoryAllocation;
	if (dev >= 0 && devs[dev].used + n > total_mem())
		goto out;
	struct alloc *a = calloc(1, sizeof *a);
	if (a == NULL)
		goto out;
	/* Room for a guard before the block; device pointers are 256-aligned. */
	if (posix_memalign((void **)&a->base, ALIGN, n + ALIGN) != 0) {
		free(a);
		goto out;
	}
	a->p = a->base + ALIGN;
	a->n = n;
	a->dev = dev;
	a->next = allocs;
	allocs = a;
	if (dev >= 0)
		devs[dev].used += n;
	*p = a->p;
	rc = cudaSuccess;
out:
	pthread_mutex_unlock(&mu);
	return rc;
}

static cudaError_t do_free(void *p, int host)
{
	if (p == NULL)
		return cudaSuccess;
	pthread_mutex_lock(&mu);
	for (struct alloc **pp = &allocs; *pp; pp = &(*pp)->next) {
		struct alloc *a = *pp;
		if (a->p != p || (a->dev < 0) != host)
			continue;
		*pp = a->next;
		if (a->dev >= 0)
			devs[a->dev].used -= a->n;
		free(a->base);
		free(a);
		pthread_mutex_unlock(&mu);
		return cudaSuccess;
	}
	pthread_mutex_unlock(&mu);
	return cudaErrorInvalidValue;
}

EXPORT cudaError_t cudaMalloc(void **p, size_t n) { return do_malloc(p, n, cur_dev); }
EXPORT cudaError_t cudaFree(void *p) { return do_free(p, 0); }
EXPORT cudaError_t cudaMallocHost(void **p, size_t n) { return do_malloc(p, n, -1); }
EXPORT cudaError_t cudaFreeHost(void *p) { return do_free(p, 1); }

/* Host sides must be pinned (cudaMallocHost) memory: Go memory must never
 * reach an async copy, and this catches it in tests. */
EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
	int dst_host, src_host, engine;
	double gbps = env_num("FAKE_CUDA_GBPS", 0);
	switch (kind) {
	case 1:
		dst_host = 0, src_host = 1, engine = ENG_H2D;
		break;
	case 2:
		dst_host = 1, src_host = 0, engine = ENG_D2H;
		break;
	case 3:
		dst_host = 0, src_host = 0, engine = ENG_COMPUTE;
		gbps = env_num("FAKE_CUDA_D2D_GBPS", 0);
		break;
	default:
		return 21; /* cudaErrorInvalidMemcpyDirection */
	}
	pthread_mutex_lock(&mu);
	cudaError_t rc = cudaErrorInvalidValue;
	if (n > 0 && (find_alloc(dst, n, dst_host) == NULL || find_alloc(src, n, src_host) == NULL))
		goto out;
	if (stream != NULL && find_stream(stream) == NULL) {
		rc = cudaErrorInvalidResourceHandle;
		goto out;
	}
	memmove(dst, src, n);
	rc = op_locked(stream, engine, gbps > 0 ? (double)n / gbps : 0, 0);
out:
	pthread_mutex_unlock(&mu);
	return rc;
}

#ifndef FAKE_CUDA13
EXPORT cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, void *stream)
{
	pthread_mutex_lock(&mu);
	cudaError_t rc = cudaErrorInvalidValue;
	if (n > 0 && find_alloc(dst, n, 0) == NULL)
		goto out;
	if (stream != NULL && find_stream(stream) == NULL) {
		rc = cudaErrorInvalidResourceHandle;
		goto out;
	}
	memset(dst, value, n);
	rc = op_locked(stream, ENG_COMPUTE, 0, 0);
out:
	pthread_mutex_unlock(&mu);
	return rc;
}
#endif

EXPORT cudaError_t cudaStreamCreate(void **s)
{
	if (s == NULL)
		return cudaErrorInvalidValue;
	struct stream *x = calloc(1, sizeof *x);
	if (x == NULL)
		return cudaErrorMemoryAllocation;
	pthread_mutex_lock(&mu);
	x->dev = cur_dev;
	x->t = host_t;
	x->next = streams;
	streams = x;
	pthread_mutex_unlock(&mu);
	*s = x;
	return cudaSuccess;
}

EXPORT cudaError_t cudaStreamDestroy(void *s)
{
	pthread_mutex_lock(&mu);
	for (struct stream **pp = &streams; *pp; pp = &(*pp)->next) {
		if ((void *)*pp != s)
			continue;
		struct stream *x = *pp;
		*pp = x->next;
		pthread_mutex_unlock(&mu);
		free(x);
		return cudaSuccess;
	}
	pthread_mutex_unlock(&mu);
	return cudaErrorInvalidResourceHandle;
}

EXPORT cudaError_t cudaStreamSynchronize(void *s)
{
	pthread_mutex_lock(&mu);
	cudaError_t rc = cudaSuccess;
	struct stream *x = NULL;
	if (s != NULL && (x = find_stream(s)) == NULL)
		rc = cudaErrorInvalidResourceHandle;
	else
		observe(ready(x, x ? x->dev : cur_dev));
	pthread_mutex_unlock(&mu);
	return rc;
}

EXPORT cudaError_t cudaStreamWaitEvent(void *s, void *e, unsigned flags)
{
	(void)flags;
	pthread_mutex_lock(&mu);
	cudaError_t rc = cudaSuccess;
	struct stream *x = NULL;
	struct event *ev = find_event(e);
	if (ev == NULL || (s != NULL && (x = find_stream(s)) == NULL))
		rc = cudaErrorInvalidResourceHandle;
	else if (ev->recorded && virtual_mode()) {
		int dev = x ? x->dev : cur_dev;
		set_done(x, dev, max64(ready(x, dev), ev->t));
	}
	pthread_mutex_unlock(&mu);
	return rc;
}

EXPORT cudaError_t cudaEventCreate(void **e)
{
	if (e == NULL)
		return cudaErrorInvalidValue;
	struct event *x = calloc(1, sizeof *x);
	if (x == NULL)
		return cudaErrorMemoryAllocation;
	pthread_mutex_lock(&mu);
	x->dev = cur_dev;
	x->next = events;
	events = x;
	pthread_mutex_unlock(&mu);
	*e = x;
	return cudaSuccess;
}

EXPORT cudaError_t cudaEventDestroy(void *e)
{
	pthread_mutex_lock(&mu);
	for (struct event **pp = &events; *pp; pp = &(*pp)->next) {
		if ((void *)*pp != e)
			continue;
		struct event *x = *pp;
		*pp = x->next;
		pthread_mutex_unlock(&mu);
		free(x);
		return cudaSuccess;
	}
	pthread_mutex_unlock(&mu);
	return cudaErrorInvalidResourceHandle;
}

EXPORT cudaError_t cudaEventRecord(void *e, void *s)
{
	pthread_mutex_lock(&mu);
	cudaError_t rc = cudaSuccess;
	struct event *ev = find_event(e);
	struct stream *x = NULL;
	if (ev == NULL || (s != NULL && (x = find_stream(s)) == NULL))
		rc = cudaErrorInvalidResourceHandle;
	else {
		ev->recorded = 1;
		ev->t = virtual_mode() ? ready(x, x ? x->dev : cur_dev) : mono_ns();
	}
	pthread_mutex_unlock(&mu);
	return rc;
}

static cudaError_t event_sync(void *e)
{
	pthread_mutex_lock(&mu);
	struct event *ev = find_event(e);
	if (ev != NULL && ev->recorded)
		observe(ev->t);
	pthread_mutex_unlock(&mu);
	return ev == NULL ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

EXPORT cudaError_t cudaEventSynchronize(void *e) { return event_sync(e); }

/* Work completes when issued, so a query always succeeds; in virtual mode
 * the host has then observed the event's time. */
EXPORT cudaError_t cudaEventQuery(void *e)
{
	return event_sync(e);
}

EXPORT cudaError_t cudaEventElapsedTime(float *ms, void *a, void *b)
{
	if (ms == NULL)
		return cudaErrorInvalidValue;
	pthread_mutex_lock(&mu);
	struct event *x = find_event(a), *y = find_event(b);
	cudaError_t rc = cudaErrorInvalidResourceHandle;
	if (x != NULL && y != NULL && x->recorded && y->recorded) {
		*ms = (float)((double)(y->t - x->t) / 1e6);
		rc = cudaSuccess;
	}
	pthread_mutex_unlock(&mu);
	return rc;
}


EXPORT cudaError_t cudaDeviceSynchronize(void)
{
	pthread_mutex_lock(&mu);
	int64_t t = ready(NULL, cur_dev);
	for (int i = 0; i < 3; i++)
		t = max64(t, devs[cur_dev].eng[i]);
	observe(t);
	pthread_mutex_unlock(&mu);
	return cudaSuccess;
}

EXPORT const char *cudaGetErrorString(cudaError_t e)
{
	switch (e) {
	case cudaSuccess:
		return "no error";
	case cudaErrorInvalidValue:
		return "invalid argument";
	case cudaErrorMemoryAllocation:
		return "out of memory";
	case 21:
		return "invalid copy direction for memcpy";
	case 35:
		return "CUDA driver version is insufficient for CUDA runtime version";
	case cudaErrorNoDevice:
		return "no CUDA-capable device is detected";
	case cudaErrorInvalidDevice:
		return "invalid device ordinal";
	case cudaErrorInvalidResourceHandle:
		return "invalid resource handle";
	}
	return "unrecognized error code";
}

#endif /* FAKE_CUDART */

#ifdef FAKE_CUBLAS

typedef int cublasStatus_t;
enum {
	CUBLAS_STATUS_SUCCESS = 0,
	CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3,
	CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_EXECUTION_FAILED = 13,
};

struct handle {
	struct handle *next;
	void *stream;
};

static pthread_mutex_t bmu = PTHREAD_MUTEX_INITIALIZER;
static struct handle *handles;

static struct handle *find_handle(void *h)
{
	for (struct handle *x = handles; x; x = x->next)
		if ((void *)x == h)
			return x;
	return NULL;
}

EXPORT cublasStatus_t cublasCreate_v2(void **h)
{
	if (h == NULL)
		return CUBLAS_STATUS_INVALID_VALUE;
	struct handle *x = calloc(1, sizeof *x);
	if (x == NULL)
		return CUBLAS_STATUS_ALLOC_FAILED;
	pthread_mutex_lock(&bmu);
	x->next = handles;
	handles = x;
	pthread_mutex_unlock(&bmu);
	*h = x;
	return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasDestroy_v2(void *h)
{
	pthread_mutex_lock(&bmu);
	for (struct handle **pp = &handles; *pp; pp = &(*pp)->next) {
		if ((void *)*pp != h)
			continue;
		struct handle *x = *pp;
		*pp = x->next;
		pthread_mutex_unlock(&bmu);
		free(x);
		return CUBLAS_STATUS_SUCCESS;
	}
	pthread_mutex_unlock(&bmu);
	return CUBLAS_STATUS_NOT_INITIALIZED;
}

EXPORT cublasStatus_t cublasSetStream_v2(void *h, void *stream)
{
	pthread_mutex_lock(&bmu);
	struct handle *x = find_handle(h);
	if (x != NULL)
		x->stream = stream;
	pthread_mutex_unlock(&bmu);
	return x == NULL ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_SUCCESS;
}

#ifndef FAKE_CUDA13
/* libraryPropertyType: 0 major, 1 minor, 2 patch. */
EXPORT cublasStatus_t cublasGetProperty(int type, int *v)
{
	static const int ver[3] = {12, 8, 4};
	if (v == NULL || type < 0 || type > 2)
		return CUBLAS_STATUS_INVALID_VALUE;
	*v = ver[type];
	return CUBLAS_STATUS_SUCCESS;
}
#endif

/* Column-major C = alpha*op(A)*op(B) + beta*C; ops are 0 (N), 1 (T), 2 (C). */
EXPORT cublasStatus_t cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k,
				     const float *alpha, const float *A, int lda,
				     const float *B, int ldb, const float *beta,
				     float *C, int ldc)
{
	pthread_mutex_lock(&bmu);
	struct handle *x = find_handle(h);
	void *stream = x ? x->stream : NULL;
	pthread_mutex_unlock(&bmu);
	if (x == NULL)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	int arows = ta ? k : m, brows = tb ? n : k;
	int acols = ta ? m : k, bcols = tb ? k : n;
	if (ta < 0 || ta > 2 || tb < 0 || tb > 2 || m < 0 || n < 0 || k < 0 ||
	    alpha == NULL || beta == NULL || lda < (arows > 1 ? arows : 1) ||
	    ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1))
		return CUBLAS_STATUS_INVALID_VALUE;
	if (m == 0 || n == 0)
		return CUBLAS_STATUS_SUCCESS;
	size_t fs = sizeof(float);
	if ((k > 0 && (!HOOK(dev_range)(A, ((size_t)lda * (acols - 1) + arows) * fs) ||
		       !HOOK(dev_range)(B, ((size_t)ldb * (bcols - 1) + brows) * fs))) ||
	    !HOOK(dev_range)(C, ((size_t)ldc * (n - 1) + m) * fs))
		return CUBLAS_STATUS_INVALID_VALUE;
	for (int j = 0; j < n; j++) {
		for (int i = 0; i < m; i++) {
			float acc = 0;
			for (int l = 0; l < k; l++) {
				float a = ta ? A[l + (size_t)i * lda] : A[i + (size_t)l * lda];
				float b = tb ? B[j + (size_t)l * ldb] : B[l + (size_t)j * ldb];
				acc += a * b;
			}
			float *c = &C[i + (size_t)j * ldc];
			/* beta == 0 must not read C, which may hold NaNs. */
			*c = *beta == 0 ? *alpha * acc : *alpha * acc + *beta * *c;
		}
	}
	double gflops = 0;
	const char *s = getenv("FAKE_CUDA_GFLOPS");
	if (s != NULL)
		gflops = strtod(s, NULL);
	double ns = gflops > 0 ? 2.0 * m * n * k / gflops : 0;
	return HOOK(stream_op)(stream, ENG_COMPUTE, ns) == 0 ? CUBLAS_STATUS_SUCCESS
							     : CUBLAS_STATUS_EXECUTION_FAILED;
}

#endif /* FAKE_CUBLAS */
