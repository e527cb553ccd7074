/*
 * test_holders — the training jobs' unit index (models/fleet/holders.h)
 * against a plain owner-per-unit array: random links and unlinks over many
 * owners (the owner table grown past its first size), and after every step
 * each owner's list must be exactly the units the array gives it, ascending.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "holders.h"

#define UNITS 700
#define OWNERS 300
#define NOBODY UINT32_MAX

static uint32_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*x >> 33);
}

/* Every owner's list against the array's units of that owner, in order. */
static void check_all(const fs_holders *h, const uint32_t *owner_of)
{
    uint32_t got[UNITS];
    for (uint32_t o = 0; o < OWNERS; o++) {
        size_t n = fs_holders_list(h, o, got), want = 0;
        for (uint32_t u = 0; u < UNITS; u++) {
            if (owner_of[u] != o)
                continue;
            assert_true(want < n);
            assert_int_equal(got[want], u);
            want++;
        }
        assert_int_equal(n, want);
    }
}

static void test_against_array(void **state)
{
    (void)state;
    fs_holders h;
    uint32_t owner_of[UNITS];
    uint64_t seed = 7;
    assert_int_equal(fs_holders_init(&h, UNITS), 0);
    for (uint32_t u = 0; u < UNITS; u++)
        owner_of[u] = NOBODY;
    /* Owners first met in rising order, then any: the table grows several times. */
    for (int step = 0; step < 20000; step++) {
        uint32_t u = lcg(&seed) % UNITS;
        if (owner_of[u] == NOBODY) {
            uint32_t o = step < 2000 ? (uint32_t)step % OWNERS : lcg(&seed) % OWNERS;
            assert_int_equal(fs_holders_link(&h, o, u), 0);
            owner_of[u] = o;
        } else {
            fs_holders_unlink(&h, owner_of[u], u);
            owner_of[u] = NOBODY;
        }
        if (step % 997 == 0)
            check_all(&h, owner_of);
    }
    check_all(&h, owner_of);
    /* An owner never linked, beyond the table, has no units. */
    uint32_t none[1];
    assert_int_equal(fs_holders_list(&h, 1u << 20, none), 0);
    fs_holders_fini(&h);
}

/* One owner's every unit out, the head first, the tail last, the middle. */
static void test_unlink_ends(void **state)
{
    (void)state;
    fs_holders h;
    uint32_t got[8];
    assert_int_equal(fs_holders_init(&h, 8), 0);
    for (uint32_t u = 0; u < 5; u++)
        assert_int_equal(fs_holders_link(&h, 3, u), 0);
    fs_holders_unlink(&h, 3, 4); /* the head: linked last */
    fs_holders_unlink(&h, 3, 0); /* the tail */
    fs_holders_unlink(&h, 3, 2); /* the middle */
    assert_int_equal(fs_holders_list(&h, 3, got), 2);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[1], 3);
    fs_holders_unlink(&h, 3, 1);
    fs_holders_unlink(&h, 3, 3);
    assert_int_equal(fs_holders_list(&h, 3, got), 0);
    fs_holders_fini(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_array),
        cmocka_unit_test(test_unlink_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
