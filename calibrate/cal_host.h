/*
 * cal_host — what fleetsim-calibrate measures without a GPU: the storage
 * step's plan read from the command line, shared by the full run and the
 * --host-only run, and the --host-only run itself.
 *
 * --host-only measures storage alone (cal_storage.h) with no pinned memory
 * and no device, so only the pageable series and storage_write, and writes a
 * partial profile: samples.device stays empty, so the profile has no "gpu"
 * key, and a note says no GPU was measured.  It calls no CUDA function, so it
 * runs on any Linux machine: fleetsim_calibrate.cu's main hands --host-only
 * over before its first CUDA call, and the build without CUDA
 * (cal_nocuda_main.c) offers nothing else.
 *
 * Plain C.  Owns nothing between calls; errors go through cal_say.
 */
#ifndef FS_CALIB_HOST_H
#define FS_CALIB_HOST_H

#include <stddef.h>

#include "cal_options.h"
#include "cal_storage.h"

/* Host memory the kernel says is available (MemAvailable in /proc/meminfo),
 * bytes; 0 when it cannot tell. */
size_t cal_host_mem_available(void);

/* The storage step's plan for these options: the file size (--storage-gb,
 * or 2 GiB, 0.5 GiB with --quick, at most a quarter of the available host
 * memory), its sizes, repetitions and time budget, in --scratch.  0, or -1
 * after a message when there is too little host memory to measure. */
int cal_host_storage_plan(const cal_config *cfg, cal_storage_plan *plan);

/* The --host-only run: measures, writes the profile to cfg->out and the
 * summary to stdout.  Returns the exit status (enum cal_exit): 0 profile
 * written, 1 the measurement or the write failed (no profile written). */
int cal_host_main(const cal_config *cfg);

#endif
