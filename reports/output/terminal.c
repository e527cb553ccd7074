#include "terminal.h"

#include <limits.h>
#include <stdarg.h>

int fs_terminal_write(FILE *fp, const char *s)
{
    return fs_terminal_write_n(fp, s, INT_MAX);
}

int fs_terminal_write_n(FILE *fp, const char *s, int max)
{
    int n = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c && n < max; c++, n++) {
        if (c[0] == 0xC2 && c[1] >= 0x80 && c[1] <= 0x9F) {
            c++; /* a C1 control (CSI is U+009B): both bytes become one '?' */
            fputc('?', fp);
        } else {
            fputc(*c < 0x20 || *c == 0x7f ? '?' : *c, fp);
        }
    }
    return n;
}

void fs_terminal_error(const char *msg)
{
    fputs("fleetsim: ", stderr);
    fs_terminal_write(stderr, msg);
    fputc('\n', stderr);
}

void fs_terminal_say(FILE *fp, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fs_terminal_write(fp, text);
    fputc('\n', fp);
}
