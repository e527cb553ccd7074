/* fuzz_input — see fuzz_input.h. */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *fs_fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return NULL;
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

/* One path per process and suffix kind; a target uses a single suffix. */
static char fs__path[4096];

static void fs__remove(void)
{
    if (fs__path[0])
        unlink(fs__path);
}

const char *fs_fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    if (!fs__path[0]) {
        const char *tmp = getenv("TMPDIR");
        int n = snprintf(fs__path, sizeof fs__path, "%s/fleetsim-fuzz-XXXXXX%s", tmp && *tmp ? tmp : "/tmp",
                         suffix);
        if (n < 0 || (size_t)n >= sizeof fs__path) {
            fs__path[0] = '\0';
            return NULL;
        }
        /* mkstemps keeps the suffix; it is not in POSIX, so the name is made
         * by mkstemp on the stem and renamed to carry the suffix. */
        char stem[4096];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(fs__path) - strlen(suffix)), fs__path);
        int fd = mkstemp(stem);
        if (fd < 0) {
            fs__path[0] = '\0';
            return NULL;
        }
        close(fd);
        snprintf(fs__path, sizeof fs__path, "%s%s", stem, suffix);
        if (rename(stem, fs__path) != 0) {
            unlink(stem);
            fs__path[0] = '\0';
            return NULL;
        }
        atexit(fs__remove);
    }
    FILE *f = fopen(fs__path, "wb");
    if (!f)
        return NULL;
    size_t wrote = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || wrote != size)
        return NULL;
    return fs__path;
}
