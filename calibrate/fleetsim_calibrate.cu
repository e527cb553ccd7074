/*
 * fleetsim-calibrate — measures, on one real GPU, the costs fleetsim's switch
 * model uses (context creation, allocation, copies in every direction,
 * eviction to host and warm-up back, time-slicing) and writes them, fitted
 * and raw, as a calibration profile (profile.h).
 *
 * Nine steps, each a progress line on stderr; the profile goes to --out,
 * written to FILE.tmp and renamed, so a failed run never leaves half a file;
 * a summary of the fits goes to stdout.  Every measured operation is
 * bracketed by cudaDeviceSynchronize and timed with CLOCK_MONOTONIC, so a
 * sample is what a tenant waits for, launch overheads included; the first
 * repetition of every size is a warm-up and is discarded.
 *
 * Two measurements need a second process, and get one by re-executing this
 * binary (/proc/self/exe, fork + execv) in a hidden mode:
 *   --child-context       times cudaSetDevice + cudaFree(0) and a first
 *                         kernel in a fresh process, prints "CTX FIRST";
 *   --child-hog SECONDS   keeps the GPU busy with long kernels, says "ready"
 *                         once its context is up, stops after SECONDS (the
 *                         parent kills it well before).
 * Children die with the parent (PR_SET_PDEATHSIG) and are always reaped.
 *
 * The binary links the CUDA runtime and GSL statically: a GPU host needs only
 * the NVIDIA driver (libcuda, which the runtime opens itself).
 *
 * Exit status: 0 profile written, 1 runtime failure (a CUDA call, a child, a
 * write; the failing call is named), 2 usage, 3 no CUDA device.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

/* The calibrate headers are C without extern "C" guards; their own includes
 * (stddef.h, stdio.h) are already in above, so only declarations land here. */
extern "C" {
#include "profile.h"
#include "samples.h"
}

#ifndef FLEETSIM_VERSION
#define FLEETSIM_VERSION "unknown"
#endif

static const char *const cal_prog = "fleetsim-calibrate";

enum cal_exit {
    CAL_EXIT_OK = 0,
    CAL_EXIT_FAILURE = 1,  /* a CUDA call, a child process, a write */
    CAL_EXIT_USAGE = 2,
    CAL_EXIT_NO_DEVICE = 3 /* cudaGetDeviceCount failed or found none, or --device out of range */
};

#define CAL_KIB ((size_t)1 << 10)
#define CAL_MIB ((size_t)1 << 20)
#define CAL_GIB ((size_t)1 << 30)

/* ------------------------------------------------------------------------
 * Diagnostics.  A progress line is left open ("... ") while its step runs;
 * an error in the middle of it starts on a fresh line.
 */

static bool cal_line_open = false;

static void cal__errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cal__errorf(const char *fmt, ...)
{
    va_list ap;
    if (cal_line_open) {
        fputs("failed\n", stderr);
        cal_line_open = false;
    }
    fprintf(stderr, "%s: ", cal_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void cal__cuda_error(const char *call, cudaError_t err)
{
    cal__errorf("%s failed: %s (%s)", call, cudaGetErrorString(err), cudaGetErrorName(err));
}

/* Every CUDA call goes through this: on failure it names the call and jumps
 * to the function's `fail` label, which releases what the function holds.
 * Functions using it declare all their variables before the first use, as
 * C++ forbids jumping over an initialisation. */
#define CAL_CUDA(call)                                                                             \
    do {                                                                                           \
        cudaError_t cal_err_ = (call);                                                             \
        if (cal_err_ != cudaSuccess) {                                                             \
            cal__cuda_error(#call, cal_err_);                                                      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* After a <<<>>> launch: launch errors surface through cudaGetLastError. */
#define CAL_LAUNCHED(kernel)                                                                       \
    do {                                                                                           \
        cudaError_t cal_err_ = cudaGetLastError();                                                 \
        if (cal_err_ != cudaSuccess) {                                                             \
            cal__cuda_error("launch of " kernel, cal_err_);                                        \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

static double cal__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------
 * Kernels.
 */

__global__ void cal_noop_kernel(void) {}

/* A dependent chain of `iters` FMAs per thread: fixed work, so under
 * time-slicing it takes longer in wall time rather than ending early (a
 * clock-based spin would end on time however little it ran). */
__global__ void cal_spin_kernel(float *sink, int iters)
{
    float a = (float)threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++)
        a = fmaf(a, 0.999999f, 1e-6f);
    if (a == 12345.0f) /* never true; keeps the chain alive */
        sink[blockIdx.x] = a;
}

/* Reads every 16-byte word once: a tenant's first kernel over its state. */
__global__ void cal_touch_kernel(const uint4 *p, size_t n, unsigned *sink)
{
    unsigned acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) /* data-dependent, so the loads stay */
        *sink = acc;
}

/* ------------------------------------------------------------------------
 * Options: one table for parsing and --help; hidden modes have no help.
 */

typedef struct cal_option {
    const char *name; /* long name without "--" */
    char letter;      /* short letter or 0 */
    const char *arg;  /* argument name, NULL for a flag */
    const char *help; /* NULL: hidden */
} cal_option;

enum { OPT_DEVICE, OPT_OUT, OPT_QUICK, OPT_MAX_GB, OPT_HELP, OPT_CHILD_CONTEXT, OPT_CHILD_HOG, OPT_COUNT };

static const cal_option cal_options[OPT_COUNT] = {
    {"device", 'd', "N", "GPU to measure, as CUDA numbers them (default 0)"},
    {"out", 'o', "FILE", "profile to write (default calibrate-profile.json)"},
    {"quick", 'q', NULL, "fewer sizes and repetitions, for a smoke run"},
    {"max-gb", 0, "G", "largest eviction / warm-up size in GiB (default 8)"},
    {"help", 'h', NULL, "print this help and exit"},
    {"child-context", 0, NULL, NULL},
    {"child-hog", 0, "SECONDS", NULL},
};

static void cal__help(FILE *fp)
{
    fprintf(fp,
            "Usage: %s [--device N] [--out FILE] [--quick] [--max-gb G]\n"
            "\n"
            "Measures context creation, cudaMalloc/cudaFree, host<->device and device copies\n"
            "(pinned and pageable), eviction to host memory and warm-up back, and kernel\n"
            "latency under time-slicing on one GPU, and writes a fleetsim calibration\n"
            "profile (fitted costs and every raw sample) as JSON.  Progress goes to stderr,\n"
            "a summary of the fits to stdout.\n"
            "\n"
            "Options:\n",
            cal_prog);
    for (int i = 0; i < OPT_COUNT; i++) {
        const cal_option *o = &cal_options[i];
        char left[64];
        if (!o->help)
            continue;
        snprintf(left, sizeof left, "%c%c%s--%s%s%s", o->letter ? '-' : ' ', o->letter ? o->letter : ' ',
                 o->letter ? ", " : "  ", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(fp, "  %-22s %s\n", left, o->help);
    }
    fprintf(fp,
            "\n"
            "Exit status: 0 profile written, 1 runtime failure, 2 usage, 3 no CUDA device.\n"
            "fleetsim %s\n",
            FLEETSIM_VERSION);
}

typedef struct cal_config {
    int device;
    const char *out;
    bool quick;
    double max_gib;
    bool help;
    bool child_context;
    double child_hog_s; /* > 0: hog mode */
} cal_config;

static int cal__usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int cal__usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", cal_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", cal_prog);
    return -1;
}

/* Fills *cfg from argv; 0, or -1 after a message on stderr. */
static int cal__parse(int argc, char **argv, cal_config *cfg)
{
    const char *values[OPT_COUNT] = {NULL};
    char *end;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *inline_value = NULL;
        int found = -1;
        size_t len;
        if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
            const char *eq = strchr(a + 2, '=');
            len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            for (int k = 0; k < OPT_COUNT; k++)
                if (strlen(cal_options[k].name) == len && strncmp(cal_options[k].name, a + 2, len) == 0)
                    found = k;
            if (eq)
                inline_value = eq + 1;
        } else if (a[0] == '-' && a[1] != '\0' && a[1] != '-' && a[2] == '\0') {
            for (int k = 0; k < OPT_COUNT; k++)
                if (cal_options[k].letter == a[1])
                    found = k;
        } else {
            return cal__usage_error("unexpected argument '%s'", a);
        }
        if (found < 0)
            return cal__usage_error("unknown option '%s'", a);
        if (cal_options[found].arg) {
            if (!inline_value) {
                if (i + 1 >= argc)
                    return cal__usage_error("--%s needs a value (%s)", cal_options[found].name,
                                            cal_options[found].arg);
                inline_value = argv[++i];
            }
            values[found] = inline_value;
        } else {
            if (inline_value)
                return cal__usage_error("--%s takes no value", cal_options[found].name);
            values[found] = "";
        }
    }

    cfg->device = 0;
    cfg->out = "calibrate-profile.json";
    cfg->quick = values[OPT_QUICK] != NULL;
    cfg->max_gib = 8.0;
    cfg->help = values[OPT_HELP] != NULL;
    cfg->child_context = values[OPT_CHILD_CONTEXT] != NULL;
    cfg->child_hog_s = 0.0;
    if (values[OPT_DEVICE]) {
        errno = 0;
        long d = strtol(values[OPT_DEVICE], &end, 10);
        if (errno || end == values[OPT_DEVICE] || *end || d < 0 || d > 1024)
            return cal__usage_error("--device: '%s' is not a device number", values[OPT_DEVICE]);
        cfg->device = (int)d;
    }
    if (values[OPT_OUT]) {
        if (values[OPT_OUT][0] == '\0')
            return cal__usage_error("--out: empty file name");
        cfg->out = values[OPT_OUT];
    }
    if (values[OPT_MAX_GB]) {
        errno = 0;
        double g = strtod(values[OPT_MAX_GB], &end);
        if (errno || end == values[OPT_MAX_GB] || *end || !(g >= 0.01 && g <= 4096.0))
            return cal__usage_error("--max-gb: '%s' is not a size in GiB between 0.01 and 4096",
                                    values[OPT_MAX_GB]);
        cfg->max_gib = g;
    }
    if (values[OPT_CHILD_HOG]) {
        errno = 0;
        double s = strtod(values[OPT_CHILD_HOG], &end);
        if (errno || end == values[OPT_CHILD_HOG] || *end || !(s > 0.0 && s <= 86400.0))
            return cal__usage_error("--child-hog: '%s' is not a number of seconds", values[OPT_CHILD_HOG]);
        cfg->child_hog_s = s;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Child processes: the same binary, re-executed in a hidden mode, its stdout
 * on a pipe.
 */

typedef struct cal_child {
    pid_t pid; /* 0: none */
    int fd;    /* read end of its stdout, -1: closed */
    FILE *err; /* its stderr, relayed when it fails; NULL: it shares ours */
} cal_child;

/* Starts /proc/self/exe with argv; 0, or -1 after a message. */
static int cal__child_start(cal_child *c, char *const argv[])
{
    int fds[2];
    pid_t parent = getpid();

    c->pid = 0;
    c->fd = -1;
    /* The child's stderr goes to a temporary file, so its messages do not
     * break into our progress line; cal__child_relay prints them. */
    c->err = tmpfile();
    if (pipe(fds) != 0) {
        cal__errorf("pipe: %s", strerror(errno));
        if (c->err)
            fclose(c->err);
        c->err = NULL;
        return -1;
    }
    /* Close-on-exec, so a later child does not inherit an earlier's pipe
     * (which would hold its EOF back); dup2 clears it on the child's stdout. */
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cal__errorf("fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        if (c->err)
            fclose(c->err);
        c->err = NULL;
        return -1;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec: the parent may
         * already run CUDA runtime threads. */
        static const char msg[] = "fleetsim-calibrate: cannot re-execute /proc/self/exe\n";
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        if (dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(127);
        if (c->err && dup2(fileno(c->err), STDERR_FILENO) < 0)
            _exit(127);
        execv("/proc/self/exe", argv);
        if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
            _exit(127);
        _exit(127);
    }
    close(fds[1]);
    c->pid = pid;
    c->fd = fds[0];
    return 0;
}

/* Reads the child's stdout into buf (NUL-terminated) until EOF, or until the
 * first newline when `line` is set, waiting at most timeout_s in all.
 * Returns the length, or -1 on timeout or a read error (after a message). */
static long cal__child_read(cal_child *c, char *buf, size_t cap, bool line, double timeout_s, const char *what)
{
    size_t len = 0;
    double deadline = cal__now() + timeout_s;

    buf[0] = '\0';
    for (;;) {
        struct pollfd pfd;
        double left = deadline - cal__now();
        if (left <= 0) {
            cal__errorf("%s: no answer within %.0f s", what, timeout_s);
            return -1;
        }
        pfd.fd = c->fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        int ready = poll(&pfd, 1, (int)(left * 1000.0) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0) {
            cal__errorf("%s: poll: %s", what, strerror(errno));
            return -1;
        }
        if (ready == 0)
            continue; /* the deadline check above ends it */
        ssize_t got = read(c->fd, buf + len, cap - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            cal__errorf("%s: read: %s", what, strerror(errno));
            return -1;
        }
        if (got == 0)
            return (long)len; /* EOF */
        len += (size_t)got;
        buf[len] = '\0';
        if ((line && strchr(buf, '\n')) || len + 1 >= cap)
            return (long)len;
    }
}

/* Copies what the child wrote to its stderr to ours, each line indented. */
static void cal__child_relay(cal_child *c)
{
    char line[512];
    if (!c->err || fseek(c->err, 0, SEEK_SET) != 0)
        return;
    while (fgets(line, sizeof line, c->err))
        fprintf(stderr, "  | %s%s", line, strchr(line, '\n') ? "" : "\n");
}

/* Waits for the child to exit, killing it first when `kill_it`; returns its
 * wait status, or -1.  Safe on a child never started.  Never leaves a zombie.
 * The child's stderr is kept until cal__child_fini. */
static int cal__child_reap(cal_child *c, bool kill_it)
{
    int status = -1;
    if (c->fd >= 0) {
        close(c->fd);
        c->fd = -1;
    }
    if (c->pid <= 0)
        return -1;
    if (kill_it)
        kill(c->pid, SIGKILL);
    while (waitpid(c->pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = -1;
            break;
        }
    }
    c->pid = 0;
    return status;
}

/* Reaps (killing) if still running and drops the saved stderr. */
static void cal__child_fini(cal_child *c)
{
    cal__child_reap(c, true);
    if (c->err)
        fclose(c->err);
    c->err = NULL;
}

static void cal__describe_status(int status, char *buf, size_t cap)
{
    if (status < 0)
        snprintf(buf, cap, "was lost");
    else if (WIFEXITED(status))
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, cap, "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(buf, cap, "stopped (status 0x%x)", (unsigned)status);
}

/* --child-context: one fresh process's context creation and first kernel. */
static int cal__child_context_main(int device)
{
    double t0, t1, t2;

    t0 = cal__now();
    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    t1 = cal__now();
    cal_noop_kernel<<<1, 1>>>();
    CAL_LAUNCHED("cal_noop_kernel");
    CAL_CUDA(cudaDeviceSynchronize());
    t2 = cal__now();
    printf("%.9f %.9f\n", t1 - t0, t2 - t1);
    return fflush(stdout) == 0 ? CAL_EXIT_OK : CAL_EXIT_FAILURE;
fail:
    return CAL_EXIT_FAILURE;
}

/* Seconds per iteration of cal_spin_kernel at this grid, from the difference
 * of two lengths (so launch overhead cancels); <= 0 on failure. */
static double cal__spin_rate(float *sink, int blocks, int threads)
{
    double best[2] = {1e30, 1e30};
    const int iters[2] = {1 << 14, 1 << 17};

    for (int rep = 0; rep < 4; rep++) {
        for (int k = 0; k < 2; k++) {
            double t0;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal__now();
            cal_spin_kernel<<<blocks, threads>>>(sink, iters[k]);
            CAL_LAUNCHED("cal_spin_kernel");
            CAL_CUDA(cudaDeviceSynchronize());
            if (rep > 0 && cal__now() - t0 < best[k])
                best[k] = cal__now() - t0;
        }
    }
    if (best[1] > best[0])
        return (best[1] - best[0]) / (double)(iters[1] - iters[0]);
    return best[1] / (double)iters[1];
fail:
    return -1.0;
}

static int cal__iters_for(double seconds, double per_iter)
{
    double n = seconds / per_iter;
    if (n < 1.0)
        return 1;
    if (n > 2e9)
        return 2000000000;
    return (int)n;
}

/* --child-hog: long kernels over the whole GPU, back to back, until killed or
 * `seconds` pass. */
static int cal__child_hog_main(int device, double seconds)
{
    float *sink = NULL;
    int sms = 0, iters;
    double per_iter, end;

    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    CAL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)sms * 8 * sizeof(float)));
    per_iter = cal__spin_rate(sink, sms * 8, 256);
    if (per_iter <= 0)
        goto fail;
    iters = cal__iters_for(0.020, per_iter); /* ~20 ms a kernel */
    printf("ready\n");
    if (fflush(stdout) != 0)
        goto fail;
    end = cal__now() + seconds;
    while (cal__now() < end) {
        cal_spin_kernel<<<sms * 8, 256>>>(sink, iters);
        CAL_LAUNCHED("cal_spin_kernel");
        CAL_CUDA(cudaDeviceSynchronize());
    }
    cudaFree(sink);
    return CAL_EXIT_OK;
fail:
    if (sink)
        cudaFree(sink);
    return CAL_EXIT_FAILURE;
}

/* ------------------------------------------------------------------------
 * The run: settings, samples, progress.
 */

typedef struct cal_run {
    cal_config cfg;
    int sms;
    int compute_mode;
    fs_calib_samples samples;
    int step, n_steps;
    double step_t0;
    /* repetitions (each plus one discarded warm-up) and counts */
    int ctx_runs, malloc_reps, copy_reps, evict_reps, slice_kernels;
    size_t size_step_malloc, size_step_copy; /* size factor between points */
} cal_run;

static void cal__step_begin(cal_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cal__step_begin(cal_run *r, const char *fmt, ...)
{
    va_list ap;
    r->step++;
    fprintf(stderr, "[%d/%d] ", r->step, r->n_steps);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" ... ", stderr);
    cal_line_open = true;
    r->step_t0 = cal__now();
}

static void cal__step_end(cal_run *r)
{
    fprintf(stderr, "done in %.1f s\n", cal__now() - r->step_t0);
    cal_line_open = false;
}

static int cal__add(cal_run *r, const char *series, double bytes, double seconds)
{
    fs_calib_series *s = fs_calib_series_get(&r->samples, series);
    if (!s || fs_calib_series_add(s, bytes, seconds) != 0) {
        cal__errorf("out of memory recording series %s", series);
        return -1;
    }
    return 0;
}

static int cal__add_scalar(cal_run *r, const char *scalar, double seconds)
{
    fs_calib_scalar *s = fs_calib_scalar_get(&r->samples, scalar);
    if (!s || fs_calib_scalar_add(s, seconds) != 0) {
        cal__errorf("out of memory recording %s", scalar);
        return -1;
    }
    return 0;
}

/* Host memory the kernel says is available (MemAvailable), bytes; 0 if unknown. */
static size_t cal__host_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;
    if (!fp)
        return 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(fp);
    return (size_t)kib * 1024;
}

static size_t cal__min(size_t a, size_t b) { return a < b ? a : b; }

static const char *cal__s(long n) { return n == 1 ? "" : "s"; }

/* Sizes first, first*factor, ... up to max inclusive; returns the count. */
static int cal__sizes(size_t first, size_t factor, size_t max, size_t *out, int cap)
{
    int n = 0;
    for (size_t s = first; s <= max && n < cap; s *= factor)
        out[n++] = s;
    return n;
}

static void cal__fmt_bytes(size_t b, char *buf, size_t cap)
{
    if (b >= CAL_GIB)
        snprintf(buf, cap, "%g GiB", (double)b / (double)CAL_GIB);
    else if (b >= CAL_MIB)
        snprintf(buf, cap, "%g MiB", (double)b / (double)CAL_MIB);
    else
        snprintf(buf, cap, "%g KiB", (double)b / (double)CAL_KIB);
}

/* ---- step 1: context creation and first kernel, fresh processes ---- */

static int cal__measure_contexts(cal_run *r)
{
    char dev[16], out[256], how[64];
    char *argv[] = {(char *)cal_prog, (char *)"--child-context", (char *)"--device", dev, NULL};
    cal_child child = {0, -1, NULL};

    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    cal__step_begin(r, "context creation, fresh processes: %d runs + 1 warm-up", r->ctx_runs);
    for (int i = 0; i <= r->ctx_runs; i++) {
        double ctx, first;
        int status;
        if (cal__child_start(&child, argv) != 0)
            return -1;
        /* Without persistence mode a cold cuInit can take seconds (costs.md). */
        if (cal__child_read(&child, out, sizeof out, false, 120.0, "context child") < 0)
            goto fail;
        status = cal__child_reap(&child, false);
        if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            cal__describe_status(status, how, sizeof how);
            cal__errorf("context child %s", how);
            goto fail;
        }
        if (sscanf(out, "%lf %lf", &ctx, &first) != 2) {
            cal__errorf("context child printed '%.60s', not two times", out);
            goto fail;
        }
        cal__child_fini(&child);
        if (i == 0)
            continue; /* warm-up: page cache, driver state */
        if (cal__add_scalar(r, "context_create", ctx) != 0 || cal__add_scalar(r, "first_kernel", first) != 0)
            return -1;
    }
    cal__step_end(r);
    return 0;
fail:
    cal__child_reap(&child, true);
    cal__child_relay(&child);
    cal__child_fini(&child);
    return -1;
}

/* ---- step 2: cudaMalloc / cudaFree against size ---- */

static int cal__measure_malloc(cal_run *r)
{
    size_t sizes[32], free_b = 0, total_b = 0, max;
    int n;
    void *p = NULL;

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    max = cal__min(4 * CAL_GIB, (size_t)(r->cfg.max_gib * (double)CAL_GIB));
    max = cal__min(max, free_b / 10 * 8);
    n = cal__sizes(CAL_MIB, r->size_step_malloc, max, sizes, 32);
    cal__step_begin(r, "cudaMalloc / cudaFree: %d size%s x %d repetition%s", n, cal__s(n), r->malloc_reps,
                    cal__s(r->malloc_reps));
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->malloc_reps; rep++) {
            double t0, t1, t2;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal__now();
            CAL_CUDA(cudaMalloc(&p, sizes[i]));
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal__now();
            CAL_CUDA(cudaFree(p));
            p = NULL;
            CAL_CUDA(cudaDeviceSynchronize());
            t2 = cal__now();
            if (rep == 0)
                continue;
            if (cal__add(r, "malloc", (double)sizes[i], t1 - t0) != 0 ||
                cal__add(r, "free", (double)sizes[i], t2 - t1) != 0)
                return -1;
        }
    }
    cal__step_end(r);
    return 0;
fail:
    if (p)
        cudaFree(p);
    return -1;
}

/* ---- steps 3-7: copies against size ---- */

static int cal__copy_series(cal_run *r, const char *series, const char *title, void *dst, const void *src,
                            cudaMemcpyKind kind, size_t max)
{
    size_t sizes[32];
    int n = cal__sizes(4 * CAL_KIB, r->size_step_copy, max, sizes, 32);

    cal__step_begin(r, "%s: %d size%s x %d repetition%s", title, n, cal__s(n), r->copy_reps, cal__s(r->copy_reps));
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->copy_reps; rep++) {
            double t0, t1;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal__now();
            CAL_CUDA(cudaMemcpy(dst, src, sizes[i], kind));
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal__now();
            if (rep > 0 && cal__add(r, series, (double)sizes[i], t1 - t0) != 0)
                return -1;
        }
    }
    cal__step_end(r);
    return 0;
fail:
    return -1;
}

static int cal__measure_copies(cal_run *r)
{
    size_t free_b = 0, total_b = 0, host = cal__host_available(), max;
    void *pinned = NULL, *dev_a = NULL, *dev_b = NULL;
    char *pageable = NULL;
    int rc = -1;

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    max = cal__min(CAL_GIB, (size_t)(r->cfg.max_gib * (double)CAL_GIB));
    max = cal__min(max, free_b / 10 * 4); /* two device buffers */
    if (host)
        max = cal__min(max, host / 4); /* a pinned and a pageable buffer */
    if (max < 4 * CAL_KIB) {
        cal__errorf("copies: only %zu bytes of device or host memory to spare", max);
        return -1;
    }
    CAL_CUDA(cudaMallocHost(&pinned, max));
    CAL_CUDA(cudaMalloc(&dev_a, max));
    CAL_CUDA(cudaMalloc(&dev_b, max));
    CAL_CUDA(cudaMemset(dev_a, 0x5a, max));
    CAL_CUDA(cudaMemset(dev_b, 0xa5, max));
    memset(pinned, 0x3c, max);
    pageable = (char *)malloc(max);
    if (!pageable) {
        cal__errorf("copies: out of host memory (%zu bytes pageable)", max);
        goto fail;
    }
    memset(pageable, 0xc3, max); /* touch: the pages exist before the copies */

    if (cal__copy_series(r, "h2d_pinned", "host-to-device copies, pinned", dev_a, pinned, cudaMemcpyHostToDevice,
                         max) != 0 ||
        cal__copy_series(r, "d2h_pinned", "device-to-host copies, pinned", pinned, dev_a, cudaMemcpyDeviceToHost,
                         max) != 0 ||
        cal__copy_series(r, "h2d_pageable", "host-to-device copies, pageable", dev_a, pageable,
                         cudaMemcpyHostToDevice, max) != 0 ||
        cal__copy_series(r, "d2h_pageable", "device-to-host copies, pageable", pageable, dev_a,
                         cudaMemcpyDeviceToHost, max) != 0 ||
        cal__copy_series(r, "d2d", "device-to-device copies", dev_b, dev_a, cudaMemcpyDeviceToDevice, max) != 0)
        goto fail;
    rc = 0;
fail:
    free(pageable);
    if (dev_b)
        cudaFree(dev_b);
    if (dev_a)
        cudaFree(dev_a);
    if (pinned)
        cudaFreeHost(pinned);
    return rc;
}

/* ---- step 8: eviction of a tenant's state and warm-up of the next ---- */

static int cal__measure_eviction(cal_run *r)
{
    size_t free_b = 0, total_b = 0, host = cal__host_available(), cap, sizes[32];
    const size_t grain = 2 * CAL_MIB; /* allocation granularity; keeps sizes in whole uint4s */
    void *pinned = NULL, *dev = NULL;
    unsigned *sink = NULL;
    int n = 0, rc = -1;
    char lo[32], hi[32];

    CAL_CUDA(cudaMemGetInfo(&free_b, &total_b));
    cap = cal__min((size_t)(r->cfg.max_gib * (double)CAL_GIB), free_b / 10 * 8);
    if (host)
        cap = cal__min(cap, host / 2); /* the pinned copy of the state */
    if (r->cfg.quick)
        cap = cal__min(cap, CAL_GIB);
    for (size_t s = r->cfg.quick ? CAL_GIB / 4 : CAL_GIB / 2; s <= cap && n < 32; s *= 2)
        sizes[n++] = s;
    if (n < 2) { /* too little room for the usual ladder: two points below the cap */
        n = 0;
        if (cap / 2 / grain * grain >= grain)
            sizes[n++] = cap / 2 / grain * grain;
        if (cap / grain * grain >= grain)
            sizes[n++] = cap / grain * grain;
    }
    if (n == 0) {
        cal__errorf("eviction: only %zu bytes of device or host memory to spare", cap);
        return -1;
    }
    cal__fmt_bytes(sizes[0], lo, sizeof lo);
    cal__fmt_bytes(sizes[n - 1], hi, sizeof hi);
    cal__step_begin(r, "eviction and warm-up: %d size%s (%s .. %s) x %d repetition%s", n, cal__s(n), lo, hi,
                    r->evict_reps, cal__s(r->evict_reps));
    CAL_CUDA(cudaMallocHost(&pinned, sizes[n - 1]));
    CAL_CUDA(cudaMalloc((void **)&sink, sizeof *sink));
    for (int i = 0; i < n; i++) {
        for (int rep = 0; rep <= r->evict_reps; rep++) {
            double t0, t1, t2, t3;
            /* The tenant's state: resident and written. */
            CAL_CUDA(cudaMalloc(&dev, sizes[i]));
            CAL_CUDA(cudaMemset(dev, 0x5a + rep, sizes[i]));
            CAL_CUDA(cudaDeviceSynchronize());
            /* Eviction: state to host, memory back to the pool. */
            t0 = cal__now();
            CAL_CUDA(cudaMemcpy(pinned, dev, sizes[i], cudaMemcpyDeviceToHost));
            CAL_CUDA(cudaFree(dev));
            dev = NULL;
            CAL_CUDA(cudaDeviceSynchronize());
            t1 = cal__now();
            /* Warm-up of the next tenant: memory, state back, first kernel over it. */
            t2 = cal__now();
            CAL_CUDA(cudaMalloc(&dev, sizes[i]));
            CAL_CUDA(cudaMemcpy(dev, pinned, sizes[i], cudaMemcpyHostToDevice));
            cal_touch_kernel<<<r->sms * 4, 256>>>((const uint4 *)dev, sizes[i] / sizeof(uint4), sink);
            CAL_LAUNCHED("cal_touch_kernel");
            CAL_CUDA(cudaDeviceSynchronize());
            t3 = cal__now();
            CAL_CUDA(cudaFree(dev));
            dev = NULL;
            if (rep == 0)
                continue;
            if (cal__add(r, "evict", (double)sizes[i], t1 - t0) != 0 ||
                cal__add(r, "warmup", (double)sizes[i], t3 - t2) != 0)
                goto fail;
        }
    }
    cal__step_end(r);
    rc = 0;
fail:
    if (dev)
        cudaFree(dev);
    if (sink)
        cudaFree(sink);
    if (pinned)
        cudaFreeHost(pinned);
    return rc;
}

/* ---- step 9: short-kernel latency alone and beside a second process ---- */

/* Launch-to-completion latency of `count` short kernels, one at a time, into
 * `scalar`; the first 10 are a warm-up.  Stops early after `budget_s`.
 * Returns the number recorded, or -1. */
static long cal__slice_series(cal_run *r, const char *scalar, float *sink, int iters, int count, double budget_s)
{
    double start = cal__now();
    long recorded = 0;
    for (int k = 0; k < count + 10; k++) {
        double t0, t1;
        t0 = cal__now();
        cal_spin_kernel<<<r->sms, 128>>>(sink, iters);
        CAL_LAUNCHED("cal_spin_kernel");
        CAL_CUDA(cudaDeviceSynchronize());
        t1 = cal__now();
        if (k < 10)
            continue;
        if (cal__add_scalar(r, scalar, t1 - t0) != 0)
            return -1;
        recorded++;
        if (t1 - start > budget_s)
            break;
    }
    return recorded;
fail:
    return -1;
}

static int cal__measure_slicing(cal_run *r)
{
    char dev[16], line[128], how[64];
    char *argv[] = {(char *)cal_prog, (char *)"--child-hog", (char *)"600", (char *)"--device", dev, NULL};
    cal_child hog = {0, -1, NULL};
    float *sink = NULL;
    double per_iter;
    int iters, status = 0, rc = -1;
    long alone, shared;
    const double kernel_s = 50e-6;
    const double budget_s = r->cfg.quick ? 15.0 : 60.0;

    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    cal__step_begin(r, "time-slicing: %d kernels of %.0f us, alone and beside a second process",
                    r->slice_kernels, kernel_s * 1e6);
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)r->sms * sizeof(float)));
    per_iter = cal__spin_rate(sink, r->sms, 128);
    if (per_iter <= 0)
        goto fail;
    iters = cal__iters_for(kernel_s, per_iter);
    alone = cal__slice_series(r, "slice_alone", sink, iters, r->slice_kernels, budget_s);
    if (alone < 0)
        goto fail;

    if (r->compute_mode != cudaComputeModeDefault) {
        /* Exclusive or prohibited: a second process cannot have a context. */
        fprintf(stderr, "(compute mode %d admits no second process: slice_shared not measured) ",
                r->compute_mode);
        cal__step_end(r);
        rc = 0;
        goto fail;
    }
    if (cal__child_start(&hog, argv) != 0)
        goto fail;
    if (cal__child_read(&hog, line, sizeof line, true, 120.0, "time-slicing hog") < 0)
        goto fail;
    if (strncmp(line, "ready", 5) != 0) {
        status = cal__child_reap(&hog, true);
        cal__describe_status(status, how, sizeof how);
        cal__errorf("time-slicing hog %s before its context was up", how);
        goto fail;
    }
    close(hog.fd); /* it writes nothing more */
    hog.fd = -1;
    shared = cal__slice_series(r, "slice_shared", sink, iters, r->slice_kernels, budget_s);
    if (shared < 0)
        goto fail;
    /* Still running?  If it died during the measurement, the samples were not shared. */
    if (waitpid(hog.pid, &status, WNOHANG) == hog.pid) {
        hog.pid = 0;
        cal__describe_status(status, how, sizeof how);
        cal__errorf("time-slicing hog %s during the measurement", how);
        goto fail;
    }
    cal__child_reap(&hog, true);
    if (shared < r->slice_kernels)
        fprintf(stderr, "(shared: %ld kernels within %.0f s) ", shared, budget_s);
    cal__step_end(r);
    rc = 0;
fail:
    cal__child_reap(&hog, true); /* no-op when already reaped */
    if (rc != 0)
        cal__child_relay(&hog);
    cal__child_fini(&hog);
    if (sink)
        cudaFree(sink);
    return rc;
}

/* ------------------------------------------------------------------------
 * Profile and summary.
 */

/* Writes the profile to path via path.tmp and rename; 0 or -1 after a message. */
/* "PATH.tmp", malloc'd; NULL after a message when out of memory. */
static char *cal__tmp_path(const char *path)
{
    size_t len = strlen(path) + 5;
    char *tmp = (char *)malloc(len);
    if (!tmp)
        cal__errorf("out of memory");
    else
        snprintf(tmp, len, "%s.tmp", path);
    return tmp;
}

static int cal__write_profile(const fs_calib_samples *s, const char *path)
{
    char *tmp = cal__tmp_path(path);
    FILE *fp = NULL;
    int rc = -1;

    if (!tmp)
        return -1;
    fp = fopen(tmp, "w");
    if (!fp) {
        cal__errorf("%s: %s", tmp, strerror(errno));
        goto out;
    }
    errno = 0;
    if (fs_calib_profile_write(s, fp) != 0 || fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) != 0) {
        cal__errorf("%s: write failed: %s", tmp, errno ? strerror(errno) : "error");
        fclose(fp);
        remove(tmp);
        goto out;
    }
    if (fclose(fp) != 0) {
        cal__errorf("%s: %s", tmp, strerror(errno));
        remove(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        cal__errorf("cannot rename %s to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
        goto out;
    }
    rc = 0;
out:
    free(tmp);
    return rc;
}

static void cal__fmt_seconds(double s, char *buf, size_t cap)
{
    if (!isfinite(s))
        snprintf(buf, cap, "-");
    else if (fabs(s) < 1e-3)
        snprintf(buf, cap, "%.1f us", s * 1e6);
    else if (fabs(s) < 1.0)
        snprintf(buf, cap, "%.2f ms", s * 1e3);
    else
        snprintf(buf, cap, "%.3f s", s);
}

static void cal__summary(const cal_run *r, const char *path)
{
    const fs_calib_samples *s = &r->samples;
    char fixed[32], median[32], bw[32];

    printf("%s: %s (%.1f GiB), driver %d, runtime %d, %s\n", cal_prog, s->device, s->memory_gb,
           s->driver_version, s->runtime_version, s->date);
    printf("profile written to %s\n\n", path);
    printf("%-14s %12s %14s %9s %6s\n", "series", "fixed", "bandwidth", "R^2", "n");
    for (size_t i = 0; i < s->n_series; i++) {
        fs_calib_fit fit;
        if (fs_calib_fit_series(&s->series[i], &fit) != 0) {
            printf("%-14s %12s %14s %9s %6zu\n", s->series[i].name, "-", "-", "-", s->series[i].n);
            continue;
        }
        cal__fmt_seconds(fit.fixed_s, fixed, sizeof fixed);
        if (isfinite(fit.bandwidth_gbps))
            snprintf(bw, sizeof bw, "%.2f GB/s", fit.bandwidth_gbps);
        else
            snprintf(bw, sizeof bw, "unbounded");
        printf("%-14s %12s %14s %9.4f %6zu\n", s->series[i].name, fixed, bw, fit.r_squared, fit.n);
    }
    printf("\n%-14s %12s %6s\n", "fixed cost", "median", "n");
    for (size_t i = 0; i < s->n_scalars; i++) {
        cal__fmt_seconds(fs_calib_scalar_median(&s->scalars[i]), median, sizeof median);
        printf("%-14s %12s %6zu\n", s->scalars[i].name, median, s->scalars[i].n);
    }
    fflush(stdout);
}

/* Fails early (before minutes of measuring) when path.tmp cannot be created;
 * 0 or -1 after a message. */
static int cal__probe_out(const char *path)
{
    char *tmp = cal__tmp_path(path);
    FILE *fp;
    if (!tmp)
        return -1;
    fp = fopen(tmp, "w");
    if (!fp) {
        cal__errorf("cannot write the profile: %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    fclose(fp);
    remove(tmp);
    free(tmp);
    return 0;
}

/* ------------------------------------------------------------------------ */

/* Device count and range check; CAL_EXIT_OK or CAL_EXIT_NO_DEVICE (after a message). */
static int cal__find_device(int device)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cal__errorf("no CUDA device: cudaGetDeviceCount failed: %s (%s)", cudaGetErrorString(err),
                    cudaGetErrorName(err));
        return CAL_EXIT_NO_DEVICE;
    }
    if (count <= 0) {
        cal__errorf("no CUDA device: cudaGetDeviceCount found none");
        return CAL_EXIT_NO_DEVICE;
    }
    if (device >= count) {
        cal__errorf("no CUDA device %d: found %d (0 .. %d)", device, count, count - 1);
        return CAL_EXIT_NO_DEVICE;
    }
    return CAL_EXIT_OK;
}

static int cal__main(cal_run *r)
{
    cudaDeviceProp prop;
    time_t now = time(NULL);
    struct tm utc;
    size_t name_len;
    int found;

    found = cal__find_device(r->cfg.device);
    if (found != CAL_EXIT_OK)
        return found;
    /* No context yet: the children of step 1 meet the GPU as a new tenant would. */
    CAL_CUDA(cudaGetDeviceProperties(&prop, r->cfg.device));
    CAL_CUDA(cudaDeviceGetAttribute(&r->compute_mode, cudaDevAttrComputeMode, r->cfg.device));
    CAL_CUDA(cudaDriverGetVersion(&r->samples.driver_version));
    CAL_CUDA(cudaRuntimeGetVersion(&r->samples.runtime_version));
    name_len = strnlen(prop.name, sizeof prop.name); /* 256 bytes into 128: names are ~25 */
    if (name_len >= sizeof r->samples.device)
        name_len = sizeof r->samples.device - 1;
    memcpy(r->samples.device, prop.name, name_len);
    r->samples.device[name_len] = '\0';
    r->samples.memory_gb = (double)prop.totalGlobalMem / (double)CAL_GIB;
    r->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    if (gmtime_r(&now, &utc))
        strftime(r->samples.date, sizeof r->samples.date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    fprintf(stderr, "%s: device %d: %s, %.1f GiB, %d SMs, driver %d, runtime %d%s\n", cal_prog, r->cfg.device,
            r->samples.device, r->samples.memory_gb, r->sms, r->samples.driver_version, r->samples.runtime_version,
            r->cfg.quick ? " (quick)" : "");

    if (cal__probe_out(r->cfg.out) != 0 || cal__measure_contexts(r) != 0)
        return CAL_EXIT_FAILURE;
    CAL_CUDA(cudaSetDevice(r->cfg.device));
    CAL_CUDA(cudaFree(0));
    if (cal__measure_malloc(r) != 0 || cal__measure_copies(r) != 0 || cal__measure_eviction(r) != 0 ||
        cal__measure_slicing(r) != 0)
        return CAL_EXIT_FAILURE;
    if (cal__write_profile(&r->samples, r->cfg.out) != 0)
        return CAL_EXIT_FAILURE;
    cal__summary(r, r->cfg.out);
    return CAL_EXIT_OK;
fail:
    return CAL_EXIT_FAILURE;
}

int main(int argc, char **argv)
{
    cal_run *r;
    int rc;

    r = (cal_run *)calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", cal_prog);
        return CAL_EXIT_FAILURE;
    }
    if (cal__parse(argc, argv, &r->cfg) != 0) {
        free(r);
        return CAL_EXIT_USAGE;
    }
    if (r->cfg.help) {
        cal__help(stdout);
        free(r);
        return CAL_EXIT_OK;
    }
    if (r->cfg.child_context) {
        rc = cal__child_context_main(r->cfg.device);
    } else if (r->cfg.child_hog_s > 0) {
        rc = cal__child_hog_main(r->cfg.device, r->cfg.child_hog_s);
    } else {
        r->n_steps = 9;
        r->ctx_runs = r->cfg.quick ? 3 : 10;
        r->malloc_reps = r->cfg.quick ? 2 : 5;
        r->copy_reps = r->cfg.quick ? 2 : 5;
        r->evict_reps = r->cfg.quick ? 1 : 3;
        r->slice_kernels = r->cfg.quick ? 200 : 1000;
        r->size_step_malloc = r->cfg.quick ? 16 : 4;
        r->size_step_copy = r->cfg.quick ? 16 : 4;
        rc = cal__main(r);
    }
    fs_calib_samples_fini(&r->samples);
    free(r);
    return rc;
}
