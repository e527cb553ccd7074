/* cal_options — fleetsim-calibrate's command line (cal_options.h). */
#include "cal_options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "cal_say.h"

#ifndef FLEETSIM_VERSION
#define FLEETSIM_VERSION "unknown"
#endif

/* One table for parsing and --help; a NULL help hides a mode from --help. */
typedef struct cal_option {
    const char *name; /* long name without "--" */
    char letter;      /* short letter or 0 */
    const char *arg;  /* argument name, NULL for a flag */
    const char *help; /* NULL: hidden */
} cal_option;

enum {
    OPT_DEVICE,
    OPT_OUT,
    OPT_QUICK,
    OPT_MAX_GB,
    OPT_STORAGE_GB,
    OPT_SCRATCH,
    OPT_STEPS,
    OPT_HOST_ONLY,
    OPT_HELP,
    OPT_CHILD_CONTEXT,
    OPT_CHILD_HOG,
    OPT_CHILD_TRAIN,
    OPT_CHILD_SERVE,
    OPT_CHILD_FILE,
    OPT_CHILD_SLICE,
    OPT_CHILD_WORK,
    OPT_COUNT
};

static const cal_option cal_options[OPT_COUNT] = {
    {"device", 'd', "N", "GPU to measure, as CUDA numbers them (default 0)"},
    {"out", 'o', "FILE", "profile to write (default calibrate-profile.json)"},
    {"quick", 'q', NULL, "fewer sizes and repetitions, for a smoke run"},
    {"max-gb", 0, "G", "largest eviction / warm-up size in GiB (default 8)"},
    {"storage-gb", 0, "G", "size of the storage test file in GiB (default 2; quick 0.5)"},
    {"scratch", 0, "DIR", "where the storage and mixed steps write their files: put it on\n"
                          "                         the disk weights load from (default /var/tmp)"},
    {"steps", 0, "LIST", "run only these steps, comma-separated (names below)"},
    {"host-only", 0, NULL, "measure storage alone, pageable memory only, with no GPU and no\n"
                           "                         CUDA call, on any Linux machine; writes a partial profile"},
    {"help", 'h', NULL, "print this help and exit"},
    {"child-context", 0, NULL, NULL},
    {"child-hog", 0, "SECONDS", NULL},
    {"child-train", 0, "BYTES", NULL},
    {"child-serve", 0, "SPEC", NULL},
    {"child-file", 0, "PATH", NULL},
    {"child-slice", 0, "SPEC", NULL},
    {"child-work", 0, "SPEC", NULL},
};

/* The times: seconds on an H100 in the full and the quick run (cal_options.h
 * says where they come from); 0.0 is a step that logged "done in 0.0 s". */
const cal_step_info cal_steps[] = {
    {"context", "CUDA context creation in a fresh process, its first kernel, and the first\n"
                "             launch of 64 distinct kernels (lazy module loading); seconds",
     2.2, 0.8},
    {"malloc", "cudaMalloc / cudaFree by size, 1 MiB .. 4 GiB; seconds against bytes",
     0.0, 0.0},
    {"copies", "host<->device copies, pinned and pageable, and device-to-device, 4 KiB ..\n"
               "             1 GiB; seconds against bytes, fitted as fixed + bytes / bandwidth",
     2.7, 0.2},
    {"eviction", "a tenant's state saved to pinned and to pageable host memory and freed,\n"
                 "             and brought back and touched, 0.5 GiB .. --max-gb; seconds against bytes",
     32.7, 2.2},
    {"kv", "KV-cache pre-allocation (cudaMalloc) and first touch (cudaMemset), 1 GiB ..\n"
           "             32 GiB; seconds against bytes",
     1.0, 0.0},
    {"storage", "a file the tool writes in --scratch, read cold (page cache dropped) and warm\n"
                "             into pageable and pinned memory, and cold all the way to the device;\n"
                "             seconds against bytes, 64 MiB .. --storage-gb (--host-only: pageable only)",
     27.6, 4.2},
    {"step-time", "one engine step of a transformer-layer proxy (bf16 GEMMs over T prompt\n"
                  "             tokens, decode attention over B sequences of L tokens) at hidden sizes\n"
                  "             2048, 4096, 8192, with the tool's own GEMM kernel and with cuBLAS\n"
                  "             where libcublas is found; seconds per step against (H, T, B, L)",
     5.1, 0.4},
    {"graphs", "CUDA graph capture, instantiation and first replay of the decode step,\n"
               "             8 and 32 layers, batch 1 .. 256; seconds against batch and kernels",
     4.3, 0.9},
    {"slicing", "latency of a 50 us kernel alone and beside a second process\n"
                "             (time-slicing); seconds",
     2.8, 0.7},
    {"mixed", "the mixed-workload check: Poisson requests to a serving process that\n"
              "             starts while a training process is evicted; each request's arrival,\n"
              "             start and end, and every phase of the switch; seconds",
     100.7, 11.9},
    {"mps", "the slicing pair again under MPS, when nvidia-cuda-mps-control can be\n"
            "             started; seconds",
     1.1, 0.6},
    {"share", "a fixed unit of compute-bound work, memory-bound work, LLM prefill and\n"
              "             LLM decode (layer proxy) under MPS at active-thread percentages\n"
              "             10 .. 100, alone and beside a second client, and under\n"
              "             time-slicing; seconds per unit",
     223.6, 46.2},
};
const int cal_step_count = (int)(sizeof cal_steps / sizeof cal_steps[0]);

bool cal_options_step_on(const cal_config *cfg, const char *name)
{
    size_t len = strlen(name);
    if (!cfg->steps)
        return true;
    for (const char *c = cfg->steps; *c;) {
        const char *end = strchr(c, ',');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (n == len && strncmp(c, name, len) == 0)
            return true;
        if (!end)
            break;
        c = end + 1;
    }
    return false;
}

/* A step's time as --help states it: "under 0.1 s" for a step the log shows
 * as 0.0 s, a tenth of a second below 10 s, whole seconds above. */
static void cal__fmt_step_time(double s, char *buf, size_t cap)
{
    if (s < 0.05)
        snprintf(buf, cap, "under 0.1 s");
    else if (s < 10.0)
        snprintf(buf, cap, "%.1f s", s);
    else
        snprintf(buf, cap, "%.0f s", s);
}

void cal_options_help(FILE *fp)
{
    fprintf(fp,
            "Usage: %s [--device N] [--out FILE] [--quick] [--max-gb G] [--storage-gb G]\n"
            "       [--scratch DIR] [--steps LIST]\n"
            "       %s --host-only [--out FILE] [--quick] [--storage-gb G] [--scratch DIR]\n"
            "\n"
            "Measures on one GPU what fleetsim's switch costs and LLM step times are made\n"
            "of, and writes a fleetsim calibration profile (fitted costs and every raw\n"
            "sample) as JSON.  Progress goes to stderr, a summary of the fits to stdout.\n"
            "A step that fails is named in the profile's samples.notes and the others go on.\n"
            "On an H100 the full run took 185 s and the --quick run 25 s (each step's time\n"
            "is below; calibrate/profiles/runs/2026-11-26-h100-run3).\n"
            "\n"
            "--host-only runs the storage step alone, into pageable memory, and calls no\n"
            "CUDA function: it runs on any Linux machine, GPU or not, and writes a partial\n"
            "profile (no \"gpu\" key, a note saying no GPU was measured).\n"
            "\n"
            "Options:\n",
            CAL_PROG, CAL_PROG);
    for (int i = 0; i < OPT_COUNT; i++) {
        const cal_option *o = &cal_options[i];
        char left[64];
        if (!o->help)
            continue;
        snprintf(left, sizeof left, "%c%c%s--%s%s%s", o->letter ? '-' : ' ', o->letter ? o->letter : ' ',
                 o->letter ? ", " : "  ", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(fp, "  %-22s %s\n", left, o->help);
    }
    fprintf(fp, "\nSteps (all by default, in this order), each with what it measures, its unit,\n"
                "and its time on an H100 in the full and the --quick run:\n");
    for (int i = 0; i < cal_step_count; i++) {
        char full[32], quick[32];
        cal__fmt_step_time(cal_steps[i].h100_full_s, full, sizeof full);
        cal__fmt_step_time(cal_steps[i].h100_quick_s, quick, sizeof quick);
        fprintf(fp, "  %-10s %s\n", cal_steps[i].name, cal_steps[i].what);
        fprintf(fp, "  %-10s on an H100: %s full, %s quick\n", "", full, quick);
    }
    fprintf(fp,
            "\n"
            "Exit status: 0 profile written, 1 runtime failure (the profile is still written\n"
            "when any step succeeded), 2 usage, 3 no CUDA device (in a build without CUDA:\n"
            "anything but --host-only and --help).\n"
            "fleetsim %s\n",
            FLEETSIM_VERSION);
}

static int cal__usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int cal__usage_error(const char *fmt, ...)
{
    /* The message echoes argv: its control characters (C0, DEL, and C1 as
     * UTF-8 encodes it) print as '?', so an argument cannot drive the
     * terminal.  fleetsim's own printer (reports/output/terminal.c) is not
     * linked into this libc-only tool, hence this local copy of the rule. */
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *to = text; /* in place: never ahead of c */
    for (const char *c = text; *c; c++) {
        unsigned char b = (unsigned char)c[0], next = (unsigned char)c[1];
        if (b == 0xC2 && next >= 0x80 && next <= 0x9F) {
            *to++ = '?';
            c++;
        } else {
            *to++ = b < 0x20 || b == 0x7f ? '?' : (char)b;
        }
    }
    *to = '\0';
    cal_say_error("%s", text);
    fprintf(stderr, "Try '%s --help'.\n", CAL_PROG);
    return -1;
}

/* text as a whole decimal number ([+-]digits[.digits][e[+-]digits]): 0 and
 * *out, or -1.  strtod alone also takes hex ("0x10" is 16), "inf", "nan" and
 * leading white space, which on a command line are typos, not sizes.  The
 * project's reader of such numbers (models/common/number.c) is not linked
 * here: this tool is libc and CUDA only (calibrate/README.md), so the same
 * rule is checked locally, character by character, before strtod reads it. */
static int cal__decimal(const char *text, double *out)
{
    const char *p = text + (*text == '+' || *text == '-');
    size_t mantissa = 0, dots = 0;
    for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
        mantissa += *p != '.';
        dots += *p == '.';
    }
    if (mantissa == 0 || dots > 1)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        if (!(*p >= '0' && *p <= '9'))
            return -1;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p != '\0')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int cal_options_parse(int argc, char **argv, cal_config *cfg)
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
    cfg->storage_gib = 0.0;
    cfg->scratch = values[OPT_SCRATCH] ? values[OPT_SCRATCH] : "/var/tmp";
    cfg->steps = values[OPT_STEPS];
    cfg->host_only = values[OPT_HOST_ONLY] != NULL;
    cfg->child_train = values[OPT_CHILD_TRAIN];
    cfg->child_serve = values[OPT_CHILD_SERVE];
    cfg->child_file = values[OPT_CHILD_FILE];
    cfg->child_slice = values[OPT_CHILD_SLICE];
    cfg->child_work = values[OPT_CHILD_WORK];
    if (cfg->scratch[0] == '\0')
        return cal__usage_error("--scratch: empty directory name");
    if (cfg->steps) {
        /* Every name must be a step: a typo would silently measure nothing. */
        for (const char *c = cfg->steps;;) {
            const char *comma = strchr(c, ',');
            size_t n = comma ? (size_t)(comma - c) : strlen(c);
            bool known = false;
            for (int k = 0; k < cal_step_count && !known; k++)
                known = strlen(cal_steps[k].name) == n && strncmp(cal_steps[k].name, c, n) == 0;
            if (!known)
                return cal__usage_error("--steps: '%.*s' is not a step (see --help)", (int)(n > 40 ? 40 : n), c);
            if (!comma)
                break;
            c = comma + 1;
        }
    }
    /* --host-only has only the storage step to run: any other name in --steps
     * would be a step the user expects and silently does not get. */
    if (cfg->host_only && cfg->steps && strcmp(cfg->steps, "storage") != 0)
        return cal__usage_error("--host-only measures storage alone: --steps '%.40s' names another step",
                                cfg->steps);
    if (values[OPT_STORAGE_GB]) {
        double g = 0;
        if (cal__decimal(values[OPT_STORAGE_GB], &g) != 0 || !(g >= 0.01 && g <= 4096.0))
            return cal__usage_error("--storage-gb: '%s' is not a size in GiB between 0.01 and 4096",
                                    values[OPT_STORAGE_GB]);
        cfg->storage_gib = g;
    }
    if (values[OPT_DEVICE]) {
        /* Digits only: strtol would also take " 1" and "+1". */
        const char *v = values[OPT_DEVICE];
        errno = 0;
        long d = strtol(v, &end, 10);
        if (errno || !(*v >= '0' && *v <= '9') || *end || d < 0 || d > 1024)
            return cal__usage_error("--device: '%s' is not a device number", values[OPT_DEVICE]);
        cfg->device = (int)d;
    }
    if (values[OPT_OUT]) {
        if (values[OPT_OUT][0] == '\0')
            return cal__usage_error("--out: empty file name");
        cfg->out = values[OPT_OUT];
    }
    if (values[OPT_MAX_GB]) {
        double g = 0;
        if (cal__decimal(values[OPT_MAX_GB], &g) != 0 || !(g >= 0.01 && g <= 4096.0))
            return cal__usage_error("--max-gb: '%s' is not a size in GiB between 0.01 and 4096",
                                    values[OPT_MAX_GB]);
        cfg->max_gib = g;
    }
    if (values[OPT_CHILD_HOG]) {
        double s = 0;
        if (cal__decimal(values[OPT_CHILD_HOG], &s) != 0 || !(s > 0.0 && s <= 86400.0))
            return cal__usage_error("--child-hog: '%s' is not a number of seconds", values[OPT_CHILD_HOG]);
        cfg->child_hog_s = s;
    }
    return 0;
}
