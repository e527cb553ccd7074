/*
 * training_parts — training.c's job steps that training_release.c shares
 * (private to models/workload).
 */
#ifndef FS_TRAINING_PARTS_H
#define FS_TRAINING_PARTS_H

#include "training.h"

/* The whole gang goes back (or a waiting request is withdrawn), the units
 * held since the grant counted as held. */
void fs__training_give_back(fs_training *t, uint32_t id, double evict_s, double now);
/* The attempt so far (training.c fs__attempt_so_far). */
void fs__training_attempt_so_far(fs_training *t, const fs_job *job, double now, double *compute_h);
/* The job asks for its gang (or, in its window, waits): 0, or ENOMEM. */
int fs__training_ask(fs_training *t, uint32_t id);

#endif
