/*
 * verdict_page — the report's overall verdict and trade-offs, under its
 * "Verdict" section.
 *
 * The verdict is compare's (tradeoffs.h): compare.json carries it under
 * "verdict" and this writes it through the same sentences the terminal
 * table prints, so the report and `compare` can never disagree.  A results
 * directory without compare.json (`fleetsim run`) has no paired
 * differences: with several policies the page says where the trade-offs
 * come from instead of guessing them.
 *
 * Ownership: borrows the page and the document; keeps nothing.
 */
#ifndef FS_VERDICT_PAGE_H
#define FS_VERDICT_PAGE_H

#include <jansson.h>
#include <stddef.h>

#include "page.h"

/* compare: compare.json's document, or NULL; n_policies: results.json's. */
void fs_verdict_page_write(fs_page_doc *d, const json_t *compare, size_t n_policies);

#endif
