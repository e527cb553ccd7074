/*
 * cal_output — what a fleetsim-calibrate run leaves behind: the profile file
 * (profile.h's JSON), and a summary of the fits on stdout.
 *
 * The profile is written to PATH.tmp, synced and renamed onto PATH, so a
 * failed run never leaves half a profile; cal_output_probe tries PATH.tmp
 * before the minutes of measuring, so an unwritable path fails at once.
 * Owns nothing between calls; failures are reported through cal_say.
 */
#ifndef FS_CALIB_OUTPUT_H
#define FS_CALIB_OUTPUT_H

#include "samples.h"

/* Creates and removes PATH.tmp; 0, or -1 after a message. */
int cal_output_probe(const char *path);

/* Writes the profile of these samples to path via path.tmp and rename; 0, or
 * -1 after a message (path.tmp removed). */
int cal_output_write(const fs_calib_samples *s, const char *path);

/* The device (or that none was measured), where the profile went, each
 * series' fit and each scalar's median, as a table on stdout. */
void cal_output_summary(const fs_calib_samples *s, const char *path);

#endif
