/* cal_child — the tool re-executed as a child process (cal_child.h). */
#include "cal_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cal_clock.h"
#include "cal_say.h"

int cal_child_start(cal_child *c, char *const argv[])
{
    int fds[2];
    pid_t parent = getpid();

    c->pid = 0;
    c->fd = -1;
    /* The child's stderr goes to a temporary file, so its messages do not
     * break into our progress line; cal_child_relay prints them. */
    c->err = tmpfile();
    if (pipe(fds) != 0) {
        cal_say_error("pipe: %s", strerror(errno));
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
        cal_say_error("fork: %s", strerror(errno));
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
        static const char msg[] = CAL_PROG ": cannot re-execute /proc/self/exe\n";
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

long cal_child_read(cal_child *c, char *buf, size_t cap, bool line, double timeout_s, const char *what)
{
    size_t len = 0;
    double deadline = cal_clock_now() + timeout_s;

    buf[0] = '\0';
    for (;;) {
        struct pollfd pfd;
        double left = deadline - cal_clock_now();
        if (left <= 0) {
            cal_say_error("%s: no answer within %.0f s", what, timeout_s);
            return -1;
        }
        pfd.fd = c->fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        int ready = poll(&pfd, 1, (int)(left * 1000.0) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0) {
            cal_say_error("%s: poll: %s", what, strerror(errno));
            return -1;
        }
        if (ready == 0)
            continue; /* the deadline check above ends it */
        ssize_t got = read(c->fd, buf + len, cap - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            cal_say_error("%s: read: %s", what, strerror(errno));
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

void cal_child_relay(cal_child *c)
{
    char line[512];
    if (!c->err || fseek(c->err, 0, SEEK_SET) != 0)
        return;
    while (fgets(line, sizeof line, c->err))
        fprintf(stderr, "  | %s%s", line, strchr(line, '\n') ? "" : "\n");
}

int cal_child_reap(cal_child *c, bool kill_it)
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

void cal_child_fini(cal_child *c)
{
    cal_child_reap(c, true);
    if (c->err)
        fclose(c->err);
    c->err = NULL;
}

void cal_child_describe(int status, char *buf, size_t cap)
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

void cal_child_abandon(cal_child *c)
{
    cal_child_reap(c, true);
    cal_child_relay(c);
    cal_child_fini(c);
}

int cal_child_start_ready(cal_child *c, char *const argv[], const char *what)
{
    char line[128], how[64];
    if (cal_child_start(c, argv) != 0)
        return -1;
    if (cal_child_read(c, line, sizeof line, true, 120.0, what) < 0 || strncmp(line, "ready", 5) != 0) {
        cal_child_describe(cal_child_reap(c, true), how, sizeof how);
        cal_say_error("%s %s before it was ready", what, how);
        return -1;
    }
    close(c->fd);
    c->fd = -1;
    return 0;
}

bool cal_child_running(cal_child *c, const char *what)
{
    char how[64];
    int status = 0;
    if (c->pid > 0 && waitpid(c->pid, &status, WNOHANG) == c->pid) {
        c->pid = 0;
        cal_child_describe(status, how, sizeof how);
        cal_say_error("%s %s during the measurement", what, how);
        return false;
    }
    return c->pid > 0;
}

void cal_child_stop(cal_child *c, double grace_s)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    double end = cal_clock_now() + grace_s;
    int status;
    if (c->pid <= 0)
        return;
    kill(c->pid, SIGTERM);
    while (cal_clock_now() < end) {
        pid_t got = waitpid(c->pid, &status, WNOHANG);
        if (got == c->pid || (got < 0 && errno != EINTR)) {
            c->pid = 0;
            return;
        }
        nanosleep(&tick, NULL);
    }
    cal_child_reap(c, true);
}
