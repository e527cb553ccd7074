/* cal_mps — the GPU shared between processes, two steps of fleetsim-calibrate
 * (cal_run.h) and their client processes: `mps`, the slicing pair under the
 * MPS daemon, and `share`, a fixed unit of compute-bound and of memory-bound
 * work under MPS active-thread percentages and under time-slicing, alone and
 * beside a second client (the source of fleetsim's fractional-GPU and MPS
 * interference figures). */
#include <ftw.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "cal_child.h"
#include "cal_clock.h"
#include "cal_say.h"
}
#include "cal_blas.h"
#include "cal_kernels.h"
#include "cal_layer.h"
#include "cal_run.h"

/* ---- MPS: the slicing pair with the MPS daemon running ---- */

/* --child-slice COUNT,ITERS: latencies of COUNT spin kernels over sms x 128,
 * after 10 untimed, printed on one line. */
int cal_mps_child_slice_main(int device, const char *spec)
{
    int count = 0, iters = 0, sms = 0;
    float *sink = NULL;
    if (sscanf(spec, "%d,%d", &count, &iters) != 2 || count < 1 || count > 100000 || iters < 1) {
        cal_say_error("--child-slice: bad spec '%s'", spec);
        return CAL_EXIT_USAGE;
    }
    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    CAL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CAL_CUDA(cudaMalloc((void **)&sink, (size_t)sms * sizeof(float)));
    for (int k = 0; k < count + 10; k++) {
        double t0 = cal_clock_now();
        if (cal_spin(sink, sms, 128, iters, 0) != 0)
            goto fail;
        CAL_CUDA(cudaDeviceSynchronize());
        if (k >= 10)
            printf("%.9f ", cal_clock_now() - t0);
    }
    printf("\n");
    cudaFree(sink);
    return fflush(stdout) == 0 ? CAL_EXIT_OK : CAL_EXIT_FAILURE;
fail:
    if (sink)
        cudaFree(sink);
    return CAL_EXIT_FAILURE;
}

/* The first executable `name` on PATH into out; 0 or -1. */
static int cal__which(const char *name, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    for (const char *c = path;;) {
        const char *end = strchr(c, ':');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        int len = snprintf(out, cap, "%.*s/%s", (int)n, c, name);
        if (n > 0 && len > 0 && (size_t)len < cap && access(out, X_OK) == 0)
            return 0;
        if (!end)
            return -1;
        c = end + 1;
    }
}

/* Runs prog with one argument and `input` on its stdin (NULL: none); its exit
 * status, or -1.  No shell: nothing here is parsed as a command. */
static int cal__run_tool(const char *prog, const char *arg, const char *input)
{
    int fds[2] = {-1, -1}, status = 0;
    pid_t pid;
    if (input && pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid < 0) {
        if (input) {
            close(fds[0]);
            close(fds[1]);
        }
        return -1;
    }
    if (pid == 0) {
        char *argv[] = {(char *)prog, (char *)arg, NULL}; /* arg NULL: no argument */
        if (input) {
            dup2(fds[0], 0);
            close(fds[0]);
            close(fds[1]);
        }
        execv(prog, argv);
        _exit(127);
    }
    if (input) {
        ssize_t len = (ssize_t)strlen(input);
        close(fds[0]);
        if (write(fds[1], input, (size_t)len) != len)
            status = -1;
        close(fds[1]);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* nftw callback: removes what the MPS daemon left in its directories. */
static int cal__remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* A child's stdout (its numbers) into buf; 0, or -1 after a message.  `what`
 * names it in messages. */
static int cal__child_output(char *const argv[], const char *what, char *buf, size_t cap)
{
    cal_child child = CAL_CHILD_NONE;
    char how[64];
    int status;
    if (cal_child_start(&child, argv) != 0)
        return -1;
    if (cal_child_read(&child, buf, cap, false, 120.0, what) < 0)
        goto fail;
    status = cal_child_reap(&child, false);
    if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        cal_child_describe(status, how, sizeof how);
        cal_say_error("%s child %s", what, how);
        goto fail;
    }
    cal_child_fini(&child);
    return 0;
fail:
    cal_child_abandon(&child);
    return -1;
}

/* One slice child's latencies into `scalar`; 0 or -1. */
static int cal__slice_child(cal_run *r, const char *spec, const char *scalar, char *buf, size_t cap)
{
    char dev[16];
    char *argv[] = {(char *)CAL_PROG, (char *)"--child-slice", (char *)spec, (char *)"--device", dev, NULL};
    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    if (cal__child_output(argv, scalar, buf, cap) != 0)
        return -1;
    for (char *c = buf, *end;; c = end) {
        double v = strtod(c, &end);
        if (end == c)
            break;
        if (cal_run_add_scalar(r, scalar, v) != 0)
            return -1;
    }
    return 0;
}

/* The MPS daemon of one step, in a directory of its own under --scratch. */
typedef struct cal_mps_daemon {
    char control[4096], dir[4096];
    bool up;
} cal_mps_daemon;

/* Starts the daemon: 1 up, 0 not available here (noted in the profile as
 * `step`: ... not measured), -1 an error.  The caller holds no CUDA context:
 * the daemon starts only where no other process holds the GPU. */
static int cal__mps_start(cal_run *r, cal_mps_daemon *d, const char *step)
{
    char pipe_dir[4200], log_dir[4200];
    d->up = false;
    d->dir[0] = '\0';
    if (cal__which("nvidia-cuda-mps-control", d->control, sizeof d->control) != 0) {
        fs_calib_note(&r->samples, "%s: nvidia-cuda-mps-control not found on PATH; not measured", step);
        fprintf(stderr, "(nvidia-cuda-mps-control not found: skipped) ");
        return 0;
    }
    snprintf(d->dir, sizeof d->dir, "%s/fleetsim-mps-XXXXXX", r->cfg.scratch);
    if (!mkdtemp(d->dir)) {
        cal_say_error("%s: cannot create a directory in %s: %s", step, r->cfg.scratch, strerror(errno));
        d->dir[0] = '\0';
        return -1;
    }
    snprintf(pipe_dir, sizeof pipe_dir, "%s/pipe", d->dir);
    snprintf(log_dir, sizeof log_dir, "%s/log", d->dir);
    if (mkdir(pipe_dir, 0700) != 0 || mkdir(log_dir, 0700) != 0) {
        cal_say_error("%s: cannot create %s: %s", step, pipe_dir, strerror(errno));
        return -1;
    }
    setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir, 1);
    setenv("CUDA_MPS_LOG_DIRECTORY", log_dir, 1);
    if (cal__run_tool(d->control, "-d", NULL) != 0) {
        fs_calib_note(&r->samples, "%s: nvidia-cuda-mps-control -d failed; not measured", step);
        fprintf(stderr, "(the MPS daemon did not start: skipped) ");
        return 0;
    }
    d->up = true;
    return 1;
}

/* Stops the daemon if up and removes its directory; safe after any start. */
static void cal__mps_stop(cal_run *r, cal_mps_daemon *d, const char *step)
{
    if (d->up && cal__run_tool(d->control, NULL, "quit\n") != 0)
        fs_calib_note(&r->samples, "%s: the MPS daemon did not quit cleanly", step);
    d->up = false;
    unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    unsetenv("CUDA_MPS_LOG_DIRECTORY");
    if (d->dir[0])
        nftw(d->dir, cal__remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    d->dir[0] = '\0';
}

int cal_mps_measure(cal_run *r)
{
    char spec[64], dev[16];
    char *argv_hog[] = {(char *)CAL_PROG, (char *)"--child-hog", (char *)"600", (char *)"--device", dev, NULL};
    char *buf = NULL;
    cal_child hog = CAL_CHILD_NONE;
    cal_mps_daemon daemon;
    const int count = r->cfg.quick ? 200 : 1000;
    float *sink = NULL;
    int rc = -1, up;

    cal_say_step("MPS: %d kernels of 50 us, alone and beside a second process", count);
    if (r->spin_per_iter <= 0) {
        CAL_CUDA(cudaSetDevice(r->cfg.device));
        CAL_CUDA(cudaMalloc((void **)&sink, (size_t)r->sms * sizeof(float)));
        r->spin_per_iter = cal_spin_rate(sink, r->sms, 128);
        cudaFree(sink);
        sink = NULL;
        if (r->spin_per_iter <= 0)
            return -1;
    }
    CAL_CUDA(cudaDeviceReset());
    snprintf(spec, sizeof spec, "%d,%d", count, cal_iters_for(50e-6, r->spin_per_iter));
    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    buf = (char *)malloc(1 << 20);
    if (!buf) {
        cal_say_error("mps: out of memory");
        return -1;
    }
    up = cal__mps_start(r, &daemon, "mps");
    if (up <= 0) {
        rc = up;
        if (up == 0)
            cal_say_done();
        goto done;
    }
    if (cal__slice_child(r, spec, "mps_alone", buf, 1 << 20) != 0) {
        fs_calib_note(&r->samples, "mps: a client process failed under the MPS daemon; not measured");
        goto done;
    }
    if (cal_child_start_ready(&hog, argv_hog, "MPS hog") != 0)
        goto done;
    if (cal__slice_child(r, spec, "mps_shared", buf, 1 << 20) != 0)
        goto done;
    cal_say_done();
    rc = 0;
done:
    cal_child_reap(&hog, true);
    if (rc != 0)
        cal_child_relay(&hog);
    cal_child_fini(&hog);
    cal__mps_stop(r, &daemon, "mps");
    free(buf);
    return rc;
fail:
    if (sink)
        cudaFree(sink);
    return -1;
}

/* ---- share: fixed work under MPS active-thread percentages and time-slicing ---- */

/* The kinds of work: a compute-bound spin (its time follows the SMs a client
 * may use) and a memory-bound read of 1 GiB (its time follows the bandwidth,
 * which a few SMs already nearly saturate), and the two phases of an LLM
 * engine on the layer proxy (cal_layer.h, cuBLAS GEMMs where the host has
 * them): a prefill step of CAL_WORK_PREFILL_T prompt tokens (tensor-core
 * bound) and a decode step of CAL_WORK_DECODE_B sequences over
 * CAL_WORK_DECODE_L tokens (weights and KV cache read: bandwidth bound), at
 * hidden size CAL_WORK_HIDDEN.  A unit is a fixed count of iterations,
 * passes or layers, about CAL_WORK_UNIT_S on the whole GPU alone.  The spin
 * has 256 blocks per SM, 32 waves on the whole GPU, so a share of the SMs
 * rounds to whole waves by 3% at most. */
enum { CAL_WORK_SPIN = 0, CAL_WORK_TOUCH = 1, CAL_WORK_PREFILL = 2, CAL_WORK_DECODE = 3, CAL_WORK_KINDS = 4 };
#define CAL_WORK_SPIN_BLOCKS_PER_SM 256
#define CAL_WORK_TOUCH_BYTES CAL_GIB
#define CAL_WORK_UNIT_S 0.010
#define CAL_WORK_HIDDEN 4096
#define CAL_WORK_PREFILL_T 2048
#define CAL_WORK_DECODE_B 32
#define CAL_WORK_DECODE_L 1024

typedef struct cal_work {
    int kind, work, sms; /* work: spin iterations, passes over the buffer, or layers */
    float *spin_sink;
    void *buf;
    unsigned *touch_sink;
    cal_layer *layer;
} cal_work;

static int cal__work_alloc(cal_work *w)
{
    char where[512];
    if (w->kind == CAL_WORK_SPIN) {
        CAL_CUDA(cudaMalloc((void **)&w->spin_sink, (size_t)w->sms * CAL_WORK_SPIN_BLOCKS_PER_SM * sizeof(float)));
    } else if (w->kind == CAL_WORK_TOUCH) {
        CAL_CUDA(cudaMalloc(&w->buf, CAL_WORK_TOUCH_BYTES));
        CAL_CUDA(cudaMemset(w->buf, 0, CAL_WORK_TOUCH_BYTES));
        CAL_CUDA(cudaMalloc((void **)&w->touch_sink, sizeof(unsigned)));
    } else {
        int prefill = w->kind == CAL_WORK_PREFILL;
        w->layer = (cal_layer *)calloc(1, sizeof *w->layer);
        if (!w->layer)
            return -1;
        if (cal_layer_init(w->layer, CAL_WORK_HIDDEN, prefill ? CAL_WORK_PREFILL_T : CAL_WORK_DECODE_B,
                           prefill ? 1 : (size_t)CAL_WORK_DECODE_B * CAL_WORK_DECODE_L) != 0) {
            free(w->layer);
            w->layer = NULL;
            return -1;
        }
        w->layer->gemm = cal_blas_open(where, sizeof where) == 0 ? CAL_GEMM_CUBLAS : CAL_GEMM_OWN;
    }
    CAL_CUDA(cudaDeviceSynchronize());
    return 0;
fail:
    return -1;
}

static void cal__work_free(cal_work *w)
{
    cudaFree(w->spin_sink); /* cudaFree(NULL) does nothing */
    cudaFree(w->buf);
    cudaFree(w->touch_sink);
    if (w->layer) {
        cal_layer_fini(w->layer);
        free(w->layer);
    }
    w->spin_sink = NULL;
    w->buf = NULL;
    w->touch_sink = NULL;
    w->layer = NULL;
}

/* One unit of work, waited for; its wall time in seconds, or -1. */
static double cal__work_unit(const cal_work *w)
{
    double t0 = cal_clock_now();
    if (w->kind == CAL_WORK_SPIN) {
        if (cal_spin(w->spin_sink, w->sms * CAL_WORK_SPIN_BLOCKS_PER_SM, 256, w->work, 0) != 0)
            return -1.0;
    } else if (w->kind == CAL_WORK_TOUCH) {
        for (int k = 0; k < w->work; k++)
            if (cal_touch(w->buf, CAL_WORK_TOUCH_BYTES, w->touch_sink, w->sms, 0) != 0)
                return -1.0;
    } else {
        int prefill = w->kind == CAL_WORK_PREFILL;
        if (cal_layer_enqueue(w->layer, w->work, prefill ? CAL_WORK_PREFILL_T : 0, prefill ? 0 : CAL_WORK_DECODE_B,
                              prefill ? 0 : CAL_WORK_DECODE_L, 0) < 0)
            return -1.0;
    }
    if (cudaDeviceSynchronize() != cudaSuccess)
        return -1.0;
    return cal_clock_now() - t0;
}

static volatile sig_atomic_t cal__work_stop;
static void cal__on_term(int sig)
{
    (void)sig;
    cal__work_stop = 1;
}

/* --child-work KIND,COUNT,WORK,SMS: COUNT units timed after two untimed, on
 * one line; COUNT 0: "ready", then units back to back until SIGTERM (at most
 * 10 minutes), then a clean exit (cal_child_stop).  SMS is the whole GPU's
 * count from the parent, so the grid is the same whatever share of it this
 * client may use. */
int cal_share_child_work_main(int device, const char *spec)
{
    cal_work w = {0, 0, 0, NULL, NULL, NULL, NULL};
    int count = -1;
    double end;
    if (sscanf(spec, "%d,%d,%d,%d", &w.kind, &count, &w.work, &w.sms) != 4 || w.kind < 0 ||
        w.kind >= CAL_WORK_KINDS || count < 0 || count > 100000 || w.work < 1 || w.sms < 1 || w.sms > 100000) {
        cal_say_error("--child-work: bad spec '%s'", spec);
        return CAL_EXIT_USAGE;
    }
    CAL_CUDA(cudaSetDevice(device));
    CAL_CUDA(cudaFree(0));
    if (cal__work_alloc(&w) != 0)
        goto fail;
    for (int k = 0; k < 2; k++)
        if (cal__work_unit(&w) < 0)
            goto fail;
    if (count == 0) {
        signal(SIGTERM, cal__on_term);
        printf("ready\n");
        if (fflush(stdout) != 0)
            goto fail;
        end = cal_clock_now() + 600.0;
        while (!cal__work_stop && cal_clock_now() < end)
            if (cal__work_unit(&w) < 0)
                goto fail;
    }
    for (int k = 0; k < count; k++) {
        double s = cal__work_unit(&w);
        if (s < 0)
            goto fail;
        printf("%.9f ", s);
    }
    printf("\n");
    cal__work_free(&w);
    cal_blas_close();
    return fflush(stdout) == 0 ? CAL_EXIT_OK : CAL_EXIT_FAILURE;
fail:
    cal_say_error("--child-work %s: a CUDA call failed", spec);
    cal__work_free(&w);
    cal_blas_close();
    return CAL_EXIT_FAILURE;
}

/* The step's settings: units per client, work per unit, the percentages. */
typedef struct cal_share_plan {
    int count, sms, work[CAL_WORK_KINDS]; /* work[kind] for one unit of CAL_WORK_UNIT_S */
    bool cublas;                           /* the LLM kinds' GEMMs: cuBLAS, or the own kernel */
    char dev[16];
    char *buf;
    size_t cap;
    fs_calib_table *table;
} cal_share_plan;

/* argv of a --child-work process into argv/spec (spec holds 64). */
static void cal__work_argv(cal_share_plan *p, int kind, int count, char *spec, char **argv)
{
    snprintf(spec, 64, "%d,%d,%d,%d", kind, count, p->work[kind], p->sms);
    argv[0] = (char *)CAL_PROG;
    argv[1] = (char *)"--child-work";
    argv[2] = spec;
    argv[3] = (char *)"--device";
    argv[4] = p->dev;
    argv[5] = NULL;
}

/* CUDA_MPS_ACTIVE_THREAD_PERCENTAGE for the next child started (0: unset). */
static void cal__set_share(int pct)
{
    char v[16];
    if (pct <= 0) {
        unsetenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
        return;
    }
    snprintf(v, sizeof v, "%d", pct);
    setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", v, 1);
}

/* One foreground client's units into the table: row (mps, kind, pct,
 * bg_kind, bg_pct, seconds); bg_kind -1 when alone.  0 or -1. */
static int cal__share_client(cal_share_plan *p, int mps, int kind, int pct, int bg_kind, int bg_pct)
{
    char spec[64], *argv[6];
    int rc;
    cal__work_argv(p, kind, p->count, spec, argv);
    cal__set_share(mps ? pct : 0);
    rc = cal__child_output(argv, "share client", p->buf, p->cap);
    cal__set_share(0);
    if (rc != 0)
        return -1;
    for (char *c = p->buf, *end;; c = end) {
        double row[6] = {(double)mps, (double)kind, (double)pct, (double)bg_kind, (double)bg_pct, 0.0};
        row[5] = strtod(c, &end);
        if (end == c)
            break;
        if (fs_calib_table_add(p->table, row) != 0) {
            cal_say_error("share: out of memory");
            return -1;
        }
    }
    return 0;
}

/* Every foreground client (each kind at each of fg_pcts) beside a busy
 * client of bg_kind at bg_pct (bg_kind -1: alone).  0 or -1. */
static int cal__share_round(cal_share_plan *p, int mps, const int *fg_pcts, int n_fg, int bg_kind, int bg_pct)
{
    char spec[64], *argv[6];
    cal_child busy = CAL_CHILD_NONE;
    int rc = -1;
    if (bg_kind >= 0) {
        cal__work_argv(p, bg_kind, 0, spec, argv);
        cal__set_share(mps ? bg_pct : 0);
        rc = cal_child_start_ready(&busy, argv, "share's second client");
        cal__set_share(0);
        if (rc != 0)
            goto done;
        rc = -1;
    }
    for (int kind = 0; kind < CAL_WORK_KINDS; kind++)
        for (int i = 0; i < n_fg; i++)
            if (cal__share_client(p, mps, kind, fg_pcts[i], bg_kind, bg_kind >= 0 ? bg_pct : 0) != 0)
                goto done;
    if (bg_kind >= 0 && !cal_child_running(&busy, "share's second client"))
        goto done;
    rc = 0;
done:
    cal_child_stop(&busy, 20.0); /* never killed at once: see cal_child_stop */
    if (rc != 0)
        cal_child_relay(&busy);
    cal_child_fini(&busy);
    return rc;
}

/* The work per unit of each kind for CAL_WORK_UNIT_S on the whole GPU: the
 * fastest of five units of a first guess, in this process before the daemon
 * starts, then scaled. */
static int cal__share_units(cal_run *r, cal_share_plan *p)
{
    cal_work w = {CAL_WORK_SPIN, 1, r->sms, NULL, NULL, NULL, NULL};
    double per_iter;
    CAL_CUDA(cudaSetDevice(r->cfg.device));
    if (cal__work_alloc(&w) != 0)
        goto fail;
    per_iter = cal_spin_rate(w.spin_sink, r->sms * CAL_WORK_SPIN_BLOCKS_PER_SM, 256);
    if (per_iter <= 0)
        goto fail;
    p->work[CAL_WORK_SPIN] = cal_iters_for(CAL_WORK_UNIT_S, per_iter);
    cal__work_free(&w);
    for (int kind = CAL_WORK_TOUCH; kind < CAL_WORK_KINDS; kind++) {
        double best = 1e30;
        w.kind = kind;
        w.work = 1; /* one pass or one layer */
        if (cal__work_alloc(&w) != 0)
            goto fail;
        for (int k = 0; k < 6; k++) {
            double s = cal__work_unit(&w);
            if (s < 0)
                goto fail;
            if (k > 0 && s < best)
                best = s;
        }
        p->work[kind] = (int)(CAL_WORK_UNIT_S / best + 0.5) > 0 ? (int)(CAL_WORK_UNIT_S / best + 0.5) : 1;
        if (w.layer)
            p->cublas = w.layer->gemm == CAL_GEMM_CUBLAS;
        cal__work_free(&w);
    }
    cal_blas_close();
    return 0;
fail:
    cal__work_free(&w);
    cal_blas_close();
    return -1;
}

int cal_share_measure(cal_run *r)
{
    static const int alone_full[] = {100, 75, 50, 25, 10}, alone_quick[] = {100, 50};
    static const int beside_full[] = {100, 50, 25}, beside_quick[] = {100, 50};
    static const int bg_full[][2] = {{CAL_WORK_SPIN, 100},    {CAL_WORK_SPIN, 50},    {CAL_WORK_TOUCH, 100},
                                     {CAL_WORK_TOUCH, 50},    {CAL_WORK_PREFILL, 100}, {CAL_WORK_PREFILL, 50},
                                     {CAL_WORK_DECODE, 100}, {CAL_WORK_DECODE, 50}};
    static const int bg_quick[][2] = {{CAL_WORK_SPIN, 100}, {CAL_WORK_DECODE, 50}};
    const int *alone = r->cfg.quick ? alone_quick : alone_full;
    const int *beside = r->cfg.quick ? beside_quick : beside_full;
    const int(*bg)[2] = r->cfg.quick ? bg_quick : bg_full;
    const int n_alone = r->cfg.quick ? 2 : 5, n_beside = r->cfg.quick ? 2 : 3, n_bg = r->cfg.quick ? 2 : 8;
    const int full_share[] = {100};
    cal_share_plan p;
    cal_mps_daemon daemon;
    int rc = -1, up = 0;

    memset(&p, 0, sizeof p);
    daemon.up = false;
    daemon.dir[0] = '\0';
    p.count = r->cfg.quick ? 5 : 20;
    p.sms = r->sms;
    snprintf(p.dev, sizeof p.dev, "%d", r->cfg.device);
    cal_say_step("share: units of %.0f ms of compute- and memory-bound work and LLM prefill and decode steps, %d "
                 "per client, under MPS shares and time-slicing",
                 CAL_WORK_UNIT_S * 1e3, p.count);
    p.table = fs_calib_table_get(&r->samples, "share", "mps,kind,pct,bg_kind,bg_pct,seconds");
    p.cap = 1 << 20;
    p.buf = (char *)malloc(p.cap);
    if (!p.table || !p.buf) {
        cal_say_error("share: out of memory, or no room for its table");
        goto done;
    }
    if (cal__share_units(r, &p) != 0)
        goto done;
    CAL_CUDA(cudaDeviceReset());
    fprintf(stderr, "(a unit: %d spin iterations, %d passes over 1 GiB, %d prefill layers, %d decode layers) ",
            p.work[CAL_WORK_SPIN], p.work[CAL_WORK_TOUCH], p.work[CAL_WORK_PREFILL], p.work[CAL_WORK_DECODE]);
    fs_calib_note(&r->samples, "share: kinds 0 spin, 1 read 1 GiB, 2 prefill H%d T%d, 3 decode H%d B%d L%d; unit %d/%d/%d/%d; GEMMs %s",
                  CAL_WORK_HIDDEN, CAL_WORK_PREFILL_T, CAL_WORK_HIDDEN, CAL_WORK_DECODE_B, CAL_WORK_DECODE_L,
                  p.work[0], p.work[1], p.work[2], p.work[3], p.cublas ? "cuBLAS" : "own kernel");

    /* A fresh daemon for every round: no round inherits another's server. */
    for (int b = -1; b < n_bg; b++) {
        up = cal__mps_start(r, &daemon, "share");
        if (up < 0)
            goto done;
        if (up == 0)
            break;
        if ((b < 0 ? cal__share_round(&p, 1, alone, n_alone, -1, 0)
                   : cal__share_round(&p, 1, beside, n_beside, bg[b][0], bg[b][1])) != 0)
            goto done;
        cal__mps_stop(r, &daemon, "share");
    }
    cal__mps_stop(r, &daemon, "share");
    /* Time-slicing: no daemon, every client the whole GPU's. */
    if (cal__share_round(&p, 0, full_share, 1, -1, 0) != 0)
        goto done;
    if (r->compute_mode != cudaComputeModeDefault) {
        fprintf(stderr, "(compute mode %d admits no second process: time-slicing pairs not measured) ",
                r->compute_mode);
    } else {
        for (int kind = 0; kind < CAL_WORK_KINDS; kind++)
            if (cal__share_round(&p, 0, full_share, 1, kind, 100) != 0)
                goto done;
    }
    cal_say_done();
    rc = 0;
done:
fail:
    cal__set_share(0);
    cal__mps_stop(r, &daemon, "share");
    free(p.buf);
    return rc;
}
