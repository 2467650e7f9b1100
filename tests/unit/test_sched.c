/* test_sched.c -- the event heap (sim/sched.c, sim/sched.h) against a plain
 * array of keys: random sets, moves, removals, takes and releases, near
 * (the per-cycle window, across its 64-bucket groups and its wrap-around)
 * and far (the binary heap), with the window's base raised and lowered,
 * for one word of agents, several words, and more agents than the window
 * takes (heap only).  After every operation the least (cycle, agent) and
 * the least cycle must be the array's. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/sched.h"
#include "check_main.h"

typedef struct Ref {
    uint32_t n;
    uint64_t *key; /* ASC_NEVER: not scheduled (or taken) */
} Ref;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* the least (cycle, agent) of the array; false when nothing is scheduled */
static bool ref_first(const Ref *r, uint32_t *agent, uint64_t *cycle)
{
    bool any = false;
    for (uint32_t a = 0; a < r->n; a++)
        if (r->key[a] != ASC_NEVER && (!any || r->key[a] < *cycle)) *agent = a, *cycle = r->key[a], any = true;
    return any;
}

static void check_same(const AscHeap *h, const Ref *r)
{
    uint32_t a = 0;
    uint64_t c = ASC_NEVER;
    ref_first(r, &a, &c);
    ck_assert_uint_eq(asc_heap_min_cycle(h), c);
}

/* `ops` random operations on `agents` agents; `spread` bounds how far ahead a key goes */
static void run(uint32_t agents, uint64_t spread, uint32_t ops, uint64_t seed)
{
    AscHeap h;
    AscAlloc alloc = {0};
    ck_assert(asc_heap_init(&h, agents, &alloc));
    Ref r = {agents, malloc(agents * sizeof *r.key)};
    for (uint32_t a = 0; a < agents; a++) r.key[a] = ASC_NEVER;
    uint64_t s = seed, now = 1000, takes = 0;
    for (uint32_t i = 0; i < ops; i++) {
        uint64_t x = rnd(&s);
        uint32_t agent = (uint32_t)(rnd(&s) % agents);
        switch (x % 8) {
        case 0: /* far ahead, possibly past the window */
        case 1:
        case 2: { /* near: a few cycles, so buckets fill and empty */
            uint64_t ahead = x % 8 == 0 ? rnd(&s) % spread : rnd(&s) % 70;
            asc_heap_set(&h, agent, now + ahead);
            r.key[agent] = now + ahead;
            break;
        }
        case 3: /* below everything scheduled: the window's base comes down */
            asc_heap_set(&h, agent, now);
            r.key[agent] = now;
            break;
        case 4:
            asc_heap_set(&h, agent, ASC_NEVER);
            r.key[agent] = ASC_NEVER;
            break;
        case 5:
            asc_heap_release(&h);
            break;
        default: { /* the run loop's step; time follows the taken agent */
            uint32_t ea = 0, ga = 0;
            uint64_t ec = ASC_NEVER, gc = 0;
            bool any = ref_first(&r, &ea, &ec);
            uint64_t limit = x % 16 == 7 ? ec : ASC_NEVER; /* sometimes the first is due at the limit */
            int got = asc_heap_take_first(&h, limit, &ga, &gc);
            if (!any) {
                ck_assert_int_eq(got, 0);
                break;
            }
            ck_assert_uint_eq(ga, ea);
            ck_assert_uint_eq(gc, ec);
            if (limit == ec) {
                ck_assert_int_eq(got, -1);
                break;
            }
            ck_assert_int_eq(got, 1);
            r.key[ga] = ASC_NEVER;
            now = gc;
            takes++;
            break;
        }
        }
        check_same(&h, &r);
    }
    ck_assert_uint_gt(takes, ops / 8);
    free(r.key);
    asc_heap_free(&h, &alloc);
}

START_TEST(one_word_near) { run(48, 200, 200000, 0x9e3779b97f4a7c15ull); }
END_TEST

START_TEST(one_word_far) { run(48, 100000, 200000, 0x2545f4914f6cdd1dull); }
END_TEST

START_TEST(words_across_groups) { run(16 * 24, 9000, 200000, 0x1234567887654321ull); }
END_TEST

START_TEST(heap_only) { run(64 * 64 + 16, 9000, 30000, 0xdeadbeefcafef00dull); } /* more agents than the window takes */
END_TEST

/* The scalar unit's shortcut: it takes the first agent only when that is a
 * scalar unit (pipe S) of the window, due before the limit, and nothing is taken. */
START_TEST(take_scalar)
{
    AscHeap h;
    AscAlloc alloc = {0};
    ck_assert(asc_heap_init(&h, 4 * ASC_AGENTS_PER_CORE, &alloc));
    uint32_t s1 = 1 * ASC_AGENTS_PER_CORE, s2 = 2 * ASC_AGENTS_PER_CORE, v1 = s1 + 2, agent = 0;
    uint64_t cycle = 0;
    asc_heap_set(&h, s2, 10);
    asc_heap_set(&h, v1, 10); /* a pipe of core 1: before core 2's scalar unit at the same cycle */
    asc_heap_set(&h, s1, 12);
    ck_assert(!asc_heap_take_scalar_inline(&h, ASC_NEVER, &agent, &cycle));
    asc_heap_set(&h, v1, 11);
    ck_assert(!asc_heap_take_scalar_inline(&h, 10, &agent, &cycle)); /* due at the limit */
    ck_assert(asc_heap_take_scalar_inline(&h, ASC_NEVER, &agent, &cycle));
    ck_assert_uint_eq(agent, s2);
    ck_assert_uint_eq(cycle, 10);
    ck_assert_uint_eq(asc_heap_min_cycle(&h), 11);
    asc_heap_set(&h, s2, 100000); /* far: in the heap, not the window */
    asc_heap_set(&h, v1, ASC_NEVER);
    asc_heap_set(&h, s1, ASC_NEVER);
    ck_assert(!asc_heap_take_scalar_inline(&h, ASC_NEVER, &agent, &cycle)); /* the heap's first: the loop takes it */
    ck_assert_int_eq(asc_heap_take_first(&h, ASC_NEVER, &agent, &cycle), 1);
    ck_assert_uint_eq(agent, s2);
    asc_heap_set(&h, s1, 100001);
    ck_assert(!asc_heap_take_scalar_inline(&h, ASC_NEVER, &agent, &cycle)); /* one is taken */
    asc_heap_free(&h, &alloc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("heap");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, one_word_near);
    tcase_add_test(tc, one_word_far);
    tcase_add_test(tc, words_across_groups);
    tcase_add_test(tc, heap_only);
    tcase_add_test(tc, take_scalar);
    suite_add_tcase(s, tc);
    return asc_check_run(s);
}
