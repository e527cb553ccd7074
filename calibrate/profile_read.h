/*
 * profile_read — a calibration profile's recorded samples read back from
 * its JSON, so that `fleetsim calibrate` and the tests can refit them with
 * the very code the measuring tool fits with (profile.h, profile_fit.h).
 *
 * Reads "device" (name, memory_gb, driver_version, runtime_version, date)
 * and "samples" (series, scalars, tables, notes); every other key is the
 * fitting's output and is ignored, since it is recomputed.  Uses jansson, so
 * it is part of fleetsim's CPU side and never of the measuring binary.
 *
 * Ownership: on success *out holds what was read (fs_calib_samples_fini
 * frees it); on failure nothing is held.
 */
#ifndef FS_CALIB_PROFILE_READ_H
#define FS_CALIB_PROFILE_READ_H

#include <stddef.h>

#include "samples.h"

/* 0, or -1 with a message naming the file and the line and column (broken
 * JSON) or the JSON path (a sample of the wrong shape) in err. */
int fs_calib_profile_read(const char *path, fs_calib_samples *out, char *err, size_t err_cap);

#endif
