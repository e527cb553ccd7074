/*
 * replay — runs a fuzz target's entry point on files, without libFuzzer:
 * the regression corpus (every crash or hang a fuzzer found) and the seed
 * corpora, as a normal ctest test under gcc, clang and the sanitizers.
 *
 *   fuzz_X_replay PATH...
 *
 * Each PATH is a file or a directory (its regular files, not recursive, in
 * name order so a failure names the same file every time).  Exit 0 when
 * every input returned; a crash ends the process (a sanitizer or the
 * signal names it), and the line printed before each input says which.
 * Exit 2 for a path that cannot be read, so a moved corpus is not a pass.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_input.h"

static int fs__replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "replay: %s: %s\n", path, buf ? "read error" : "out of memory");
        free(buf);
        return -1;
    }
    printf("replay: %s (%zu bytes)\n", path, n);
    fflush(stdout); /* the last line names the input if the next call crashes */
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int fs__by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int fs__replay_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: cannot open the directory\n", dir);
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                rc = -1;
                break;
            }
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) {
            rc = -1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, fs__by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc = fs__replay_file(names[i]);
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    if (rc != 0)
        fprintf(stderr, "replay: %s: stopped\n", dir);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int rc = stat(argv[i], &st) != 0 ? (fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]), -1)
                 : S_ISDIR(st.st_mode)   ? fs__replay_dir(argv[i], &count)
                                         : (count++, fs__replay_file(argv[i]));
        if (rc != 0)
            return 2;
    }
    printf("replay: %zu input(s), none crashed\n", count);
    return 0;
}
