/* outfile.h -- safe output files: every file a tool writes goes through a
 * temporary created exclusively beside its target and is renamed into place
 * only when the whole run succeeded (docs/internals.md §Safe outputs).
 *
 *  - A temporary is `DIR/.BASE.asc-tmp.PID.RANDOM` (BASE the target's file
 *    name, PID the writer's process, RANDOM 12 letters from /dev/urandom),
 *    opened with O_CREAT | O_EXCL | O_NOFOLLOW: a planted file or symlink of
 *    any name is never written through; a name already taken is retried.
 *  - An AscOutSet is the list of a run's open temporaries.  Writers add to
 *    it; asc_out_commit renames all of them into place (after every one was
 *    written completely), asc_out_abort / asc_out_free remove them.  A failed
 *    run therefore writes nothing and leaves earlier outputs untouched.
 *  - asc_out_signal_cleanup is async-signal-safe (only unlink and rmdir on
 *    paths stored before the entry was marked live), for a CLI's SIGINT /
 *    SIGTERM handler.  The library holds no global state: the CLI keeps the
 *    pointer to its set for the handler.
 *  - An existing character device or FIFO target (/dev/null, /dev/stdout
 *    into a pipe) is written directly: no temporary, commit only closes it;
 *    another non-regular target (block device, socket) is an error.
 *  - A SIGKILL cannot be caught; its temporaries carry the dead PID, and the
 *    next asc_out_open for the same target removes `.BASE.asc-tmp.PID.*`
 *    entries whose PID no longer runs (and that the caller owns).
 *
 * Layer 1 (isa/): every writer above may use it.  Users: loader/elf_write.c,
 * run/npy.c, run/trace.c, asc-sim, asc-as, viz/viz_png.c, asc-gen-isa,
 * asc-gen-abi. */
#ifndef ASC_OUTFILE_H
#define ASC_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "asc/alloc.h"
#include "asc/diag.h"

#define ASC_OUT_MAX 512 /* temporaries one set holds at most */

typedef struct AscOutSet AscOutSet;

/* NULL when out of memory.  The set allocates through `alloc` (NULL: malloc). */
AscOutSet *asc_out_new(const AscAlloc *alloc);
/* Remove every temporary not committed, then free the set (NULL is a no-op). */
void asc_out_free(AscOutSet *s);

/* Create the temporary of `path` and return a stream on it (binary).  The
 * stream belongs to the set: finish with asc_out_close (or let commit or
 * abort close it).  NULL + IO diagnostic on error. */
FILE *asc_out_open(AscOutSet *s, const char *path, AscDiags *d);
/* Close the stream `f` of the set; false + IO diagnostic when a write or the
 * close failed (the entry is then removed: commit will fail). */
bool asc_out_close(AscOutSet *s, FILE *f, AscDiags *d);
/* A whole buffer as the file `path`: open, write, close.  With s NULL, a
 * set of its own is committed at once. */
bool asc_out_write(AscOutSet *s, const char *path, const void *buf, size_t len, AscDiags *d);
/* The file `path` as written by fn, through a set of its own committed at once (the
 * generators' outputs).  false + diagnostics in d (when d) on any failure; nothing replaced. */
bool asc_out_emit(const char *path, void (*fn)(FILE *f), AscDiags *d);

/* A staged directory: returns a new private directory beside `dir` to write
 * into; commit moves each file of it into `dir` (created if missing) and
 * removes it.  NULL + IO diagnostic on error.  While files are written into
 * it (by code that knows nothing of the set, e.g. asc_sim_report_dir), block
 * the signals the handler catches, then call asc_out_dir_done: it lists the
 * files so that the handler, abort and commit know them. */
const char *asc_out_open_dir(AscOutSet *s, const char *dir, AscDiags *d);
bool asc_out_dir_done(AscOutSet *s, const char *tmpdir, AscDiags *d);

/* Rename every temporary into place, in the order opened.  On the first
 * failure the rest are removed and false + IO diagnostic returned.  Any
 * entry whose write failed makes the commit fail before renaming anything. */
bool asc_out_commit(AscOutSet *s, AscDiags *d);
/* Remove every temporary (close its stream first). */
void asc_out_abort(AscOutSet *s);
/* For a signal handler: unlink every live temporary.  Async-signal-safe. */
void asc_out_signal_cleanup(AscOutSet *s);

/* true when `a` and `b` name the same existing file (st_dev and st_ino, so
 * also through hard links and symlinks), or the same path text. */
bool asc_out_same_file(const char *a, const char *b);
/* An output that would overwrite one of the inputs is an error: false +
 * diagnostic SAME_FILE naming both. */
bool asc_out_check_inputs(const char *out, const char *const *ins, unsigned nins, AscDiags *d);

#endif
