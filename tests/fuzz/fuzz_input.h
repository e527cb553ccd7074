/*
 * fuzz_input — what the fuzz targets share: an input as a C string, and an
 * input written to a file, for the readers that take a path (traces, a
 * calibration file).
 *
 * Each process writes to one temporary file of its own (made on first use,
 * rewritten for every input, removed at exit), so parallel fuzzers and the
 * regression replay never share a file.
 */
#ifndef FS_FUZZ_INPUT_H
#define FS_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* The bytes as a NUL-terminated copy (the readers take C strings; an
 * embedded NUL ends the text there, as it would in a file read as text).
 * NULL when out of memory.  The caller frees it. */
char *fs_fuzz_text(const uint8_t *data, size_t size);

/* Writes the bytes to this process's temporary file (suffix, e.g. ".csv",
 * ends its name) and returns the file's absolute path, valid until the next
 * call; NULL when the file cannot be made or written (the input is then
 * skipped, not reported as a crash). */
const char *fs_fuzz_file(const uint8_t *data, size_t size, const char *suffix);

/* The entry point libFuzzer calls, and the replay driver (replay.c) without
 * libFuzzer; each fuzz_*.c defines it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
