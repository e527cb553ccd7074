/* cal_mps — the slicing pair under MPS, when the MPS daemon can be started:
 * a step of fleetsim-calibrate (cal_run.h), and its client process. */
#include <ftw.h>
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
#include "cal_kernels.h"
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

/* One slice child's latencies into `scalar`; 0 or -1. */
static int cal__slice_child(cal_run *r, const char *spec, const char *scalar, char *buf, size_t cap)
{
    char dev[16], how[64];
    char *argv[] = {(char *)CAL_PROG, (char *)"--child-slice", (char *)spec, (char *)"--device", dev, NULL};
    cal_child child = CAL_CHILD_NONE;
    int status;
    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    if (cal_child_start(&child, argv) != 0)
        return -1;
    if (cal_child_read(&child, buf, cap, false, 60.0, scalar) < 0)
        goto fail;
    status = cal_child_reap(&child, false);
    if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        cal_child_describe(status, how, sizeof how);
        cal_say_error("%s child %s", scalar, how);
        goto fail;
    }
    cal_child_fini(&child);
    for (char *c = buf, *end;; c = end) {
        double v = strtod(c, &end);
        if (end == c)
            break;
        if (cal_run_add_scalar(r, scalar, v) != 0)
            return -1;
    }
    return 0;
fail:
    cal_child_reap(&child, true);
    cal_child_relay(&child);
    cal_child_fini(&child);
    return -1;
}

int cal_mps_measure(cal_run *r)
{
    char control[4096], dir[4096], pipe_dir[4200], log_dir[4200], spec[64], dev[16], line[128];
    char *argv_hog[] = {(char *)CAL_PROG, (char *)"--child-hog", (char *)"600", (char *)"--device", dev, NULL};
    char *buf = NULL;
    cal_child hog = CAL_CHILD_NONE;
    const int count = r->cfg.quick ? 200 : 1000;
    float *sink = NULL;
    int rc = -1, daemon_up = 0;

    cal_say_step("MPS: %d kernels of 50 us, alone and beside a second process", count);
    if (cal__which("nvidia-cuda-mps-control", control, sizeof control) != 0) {
        fs_calib_note(&r->samples, "mps: nvidia-cuda-mps-control not found on PATH; not measured");
        fprintf(stderr, "(nvidia-cuda-mps-control not found: skipped) ");
        cal_say_done();
        return 0;
    }
    if (r->spin_per_iter <= 0) {
        CAL_CUDA(cudaSetDevice(r->cfg.device));
        CAL_CUDA(cudaMalloc((void **)&sink, (size_t)r->sms * sizeof(float)));
        r->spin_per_iter = cal_spin_rate(sink, r->sms, 128);
        cudaFree(sink);
        sink = NULL;
        if (r->spin_per_iter <= 0)
            return -1;
    }
    /* The daemon starts only where no other process holds the GPU: not us. */
    CAL_CUDA(cudaDeviceReset());
    snprintf(spec, sizeof spec, "%d,%d", count, cal_iters_for(50e-6, r->spin_per_iter));
    snprintf(dev, sizeof dev, "%d", r->cfg.device);
    snprintf(dir, sizeof dir, "%s/fleetsim-mps-XXXXXX", r->cfg.scratch);
    if (!mkdtemp(dir)) {
        cal_say_error("mps: cannot create a directory in %s: %s", r->cfg.scratch, strerror(errno));
        return -1;
    }
    snprintf(pipe_dir, sizeof pipe_dir, "%s/pipe", dir);
    snprintf(log_dir, sizeof log_dir, "%s/log", dir);
    if (mkdir(pipe_dir, 0700) != 0 || mkdir(log_dir, 0700) != 0) {
        cal_say_error("mps: cannot create %s: %s", pipe_dir, strerror(errno));
        goto done;
    }
    buf = (char *)malloc(1 << 20);
    if (!buf) {
        cal_say_error("mps: out of memory");
        goto done;
    }
    setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir, 1);
    setenv("CUDA_MPS_LOG_DIRECTORY", log_dir, 1);
    if (cal__run_tool(control, "-d", NULL) != 0) {
        fs_calib_note(&r->samples, "mps: nvidia-cuda-mps-control -d failed; not measured");
        fprintf(stderr, "(the MPS daemon did not start: skipped) ");
        rc = 0;
        goto done;
    }
    daemon_up = 1;
    if (cal__slice_child(r, spec, "mps_alone", buf, 1 << 20) != 0) {
        fs_calib_note(&r->samples, "mps: a client process failed under the MPS daemon; not measured");
        goto done;
    }
    if (cal_child_start(&hog, argv_hog) != 0)
        goto done;
    if (cal_child_read(&hog, line, sizeof line, true, 60.0, "MPS hog") < 0 || strncmp(line, "ready", 5) != 0) {
        cal_say_error("mps: the second process did not start");
        goto done;
    }
    close(hog.fd);
    hog.fd = -1;
    if (cal__slice_child(r, spec, "mps_shared", buf, 1 << 20) != 0)
        goto done;
    cal_say_done();
    rc = 0;
done:
    if (hog.pid) {
        cal_child_reap(&hog, true);
        if (rc != 0)
            cal_child_relay(&hog);
    }
    cal_child_fini(&hog);
    if (daemon_up && cal__run_tool(control, NULL, "quit\n") != 0)
        fs_calib_note(&r->samples, "mps: the daemon did not quit cleanly");
    unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    unsetenv("CUDA_MPS_LOG_DIRECTORY");
    nftw(dir, cal__remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(buf);
    return rc;
fail:
    if (sink)
        cudaFree(sink);
    return -1;
}

