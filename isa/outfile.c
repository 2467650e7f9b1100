/* outfile.c -- safe output files (include/asc/outfile.h): exclusive
 * temporaries beside the target, never following a symlink, renamed into
 * place all together at commit, removed on every other path.
 *
 * Invariants: an entry's strings are allocated and stored before its
 * live flag is set, and the flag is cleared before they are freed, so the
 * signal handler (asc_out_signal_cleanup) only ever reads complete paths;
 * entries are never reordered, and the handler walks them backwards so the
 * files of a staged directory (added after it) go before the directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "asc/outfile.h"

enum { ENT_FILE, ENT_DIR, ENT_CHILD, ENT_DEV }; /* ENT_DEV: streamed to a device or FIFO, no temporary */

typedef struct Ent {
    char *tmp;   /* the temporary (file or staged directory) */
    char *path;  /* where it goes at commit */
    FILE *f;     /* ENT_FILE while open */
    uint8_t kind;
    bool failed; /* a write or close failed: commit refuses */
} Ent;

struct AscOutSet {
    AscAlloc alloc;
    uint64_t counter; /* mixed into the names when /dev/urandom is unavailable */
    Ent e[ASC_OUT_MAX];
    volatile sig_atomic_t live[ASC_OUT_MAX];
    volatile sig_atomic_t n;
};

static const char tag[] = ".asc-tmp."; /* .BASE.asc-tmp.PID.RANDOM */

AscOutSet *asc_out_new(const AscAlloc *alloc)
{
    AscAlloc a = asc_alloc_resolve(alloc);
    AscOutSet *s = asc_calloc(&a, 1, sizeof *s);
    if (s) s->alloc = a;
    return s;
}

static char *dup_str(AscOutSet *s, const char *a, const char *b)
{
    size_t la = strlen(a), lb = b ? strlen(b) : 0;
    char *p = asc_malloc(&s->alloc, la + lb + 1);
    if (!p) return NULL;
    memcpy(p, a, la);
    if (b) memcpy(p + la, b, lb);
    p[la + lb] = 0;
    return p;
}

static void io_err(AscDiags *d, const char *what, const char *path, int err)
{
    if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, what, path, strerror(err ? err : EIO));
}

/* Split "a/b/c" into dir "a/b/" (kept with its slash; "" for none) and base "c". */
static size_t dir_len(const char *path)
{
    const char *sl = strrchr(path, '/');
    return sl ? (size_t)(sl - path) + 1 : 0;
}

/* 12 random letters: /dev/urandom, else the clock, pid and a counter. */
static void random_name(AscOutSet *s, char out[13])
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint8_t r[12];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    bool got = fd >= 0 && read(fd, r, sizeof r) == (ssize_t)sizeof r;
    if (fd >= 0) close(fd);
    if (!got) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^
                     (++s->counter * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(uintptr_t)s;
        for (int i = 0; i < 12; i++) {
            x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 29;
            r[i] = (uint8_t)x;
        }
    }
    for (int i = 0; i < 12; i++) out[i] = abc[r[i] % (sizeof abc - 1)];
    out[12] = 0;
}

/* The temporary's name for target `path`, without the random part:
 * "DIR/.BASE.asc-tmp.PID." */
static char *tmp_prefix(AscOutSet *s, const char *path)
{
    size_t dl = dir_len(path);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld.", (long)getpid());
    size_t n = strlen(path) + sizeof tag + strlen(pid) + 2;
    char *p = asc_malloc(&s->alloc, n + 13);
    if (p) snprintf(p, n, "%.*s.%s%s%s", (int)dl, path, path + dl, tag, pid);
    return p;
}

/* Remove a dead process's leftovers of `path`: entries ".BASE.asc-tmp.PID.*"
 * in its directory whose PID does not run and which this user owns (files;
 * a staged directory with its files). */
static void remove_stale(const char *path)
{
    size_t dl = dir_len(path);
    const char *base = path + dl;
    char dir[4096];
    if (dl >= sizeof dir || !*base) return;
    snprintf(dir, sizeof dir, "%.*s", dl ? (int)dl : 1, dl ? path : ".");
    DIR *dp = opendir(dir);
    if (!dp) return;
    size_t bl = strlen(base);
    struct dirent *de;
    while ((de = readdir(dp))) {
        const char *nm = de->d_name;
        if (nm[0] != '.' || strncmp(nm + 1, base, bl) || strncmp(nm + 1 + bl, tag, sizeof tag - 1)) continue;
        const char *p = nm + 1 + bl + sizeof tag - 1;
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p || *end != '.' || pid <= 0 || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
        char full[8192];
        snprintf(full, sizeof full, "%s/%s", dir, nm);
        struct stat st;
        if (lstat(full, &st) != 0 || st.st_uid != geteuid()) continue;
        if (S_ISREG(st.st_mode)) {
            unlink(full);
        } else if (S_ISDIR(st.st_mode)) {
            DIR *sub = opendir(full);
            struct dirent *ce;
            while (sub && (ce = readdir(sub))) {
                if (!strcmp(ce->d_name, ".") || !strcmp(ce->d_name, "..")) continue;
                char child[12288];
                snprintf(child, sizeof child, "%s/%s", full, ce->d_name);
                struct stat cs;
                if (lstat(child, &cs) == 0 && !S_ISDIR(cs.st_mode)) unlink(child);
            }
            if (sub) closedir(sub);
            rmdir(full);
        }
    }
    closedir(dp);
}

/* Append an entry; its strings are owned by the set from here on. */
static Ent *add(AscOutSet *s, uint8_t kind, char *tmp, char *path, AscDiags *d)
{
    if (s->n >= ASC_OUT_MAX) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "create a temporary for", path, "too many output files");
        asc_free(&s->alloc, tmp);
        asc_free(&s->alloc, path);
        return NULL;
    }
    int i = s->n;
    s->e[i] = (Ent){.tmp = tmp, .path = path, .kind = kind};
    s->live[i] = 1;
    s->n = i + 1;
    return &s->e[i];
}

FILE *asc_out_open(AscOutSet *s, const char *path, AscDiags *d)
{
    if (s->n >= ASC_OUT_MAX) {
        if (d) asc_diag(d, ASC_DIAG_IO, (AscLoc){0}, "create a temporary for", path, "too many output files");
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* -o /dev/null, /dev/stdout, a FIFO: write to it, never rename a regular file over the
         * node (as root that would replace /dev/null for the whole machine) */
        if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
            io_err(d, "write", path, EINVAL);
            return NULL;
        }
        char *dst = dup_str(s, path, NULL);
        int fd = dst ? open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) : -1;
        int err = errno;
        FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!f) {
            if (fd >= 0) err = errno, close(fd);
            if (dst) io_err(d, "write", path, err);
            else if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
            asc_free(&s->alloc, dst);
            return NULL;
        }
        Ent *e = add(s, ENT_DEV, NULL, dst, d); /* cannot fail: there was room */
        e->f = f;
        return f;
    }
    remove_stale(path);
    char *pre = tmp_prefix(s, path), *dst = dup_str(s, path, NULL);
    if (!pre || !dst) {
        asc_free(&s->alloc, pre);
        asc_free(&s->alloc, dst);
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    size_t pl = strlen(pre);
    int fd = -1, err = 0;
    for (int tries = 0; tries < 100 && fd < 0; tries++) {
        random_name(s, pre + pl);
        fd = open(pre, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        err = errno;
        if (fd < 0 && err != EEXIST) break;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        if (fd >= 0) err = errno, close(fd), unlink(pre);
        io_err(d, "write", path, err);
        asc_free(&s->alloc, pre);
        asc_free(&s->alloc, dst);
        return NULL;
    }
    Ent *e = add(s, ENT_FILE, pre, dst, d); /* cannot fail: there was room */
    e->f = f;
    return f;
}

static Ent *find_stream(AscOutSet *s, FILE *f)
{
    for (int i = 0; i < s->n; i++)
        if (s->live[i] && s->e[i].f == f) return &s->e[i];
    return NULL;
}

static bool close_ent(Ent *e, AscDiags *d)
{
    if (!e->f) return !e->failed;
    int err = 0;
    if (ferror(e->f)) err = errno ? errno : EIO;
    if (fclose(e->f) != 0 && !err) err = errno ? errno : EIO;
    e->f = NULL;
    if (err) {
        e->failed = true;
        io_err(d, "write", e->path, err);
    }
    return !e->failed;
}

bool asc_out_close(AscOutSet *s, FILE *f, AscDiags *d)
{
    Ent *e = find_stream(s, f);
    return e && close_ent(e, d);
}

bool asc_out_emit(const char *path, void (*fn)(FILE *f), AscDiags *d)
{
    AscOutSet *s = asc_out_new(NULL);
    FILE *f = s ? asc_out_open(s, path, d) : NULL;
    if (!s && d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
    if (f) fn(f);
    bool ok = f && asc_out_close(s, f, d) && asc_out_commit(s, d);
    asc_out_free(s);
    return ok;
}

bool asc_out_write(AscOutSet *s, const char *path, const void *buf, size_t len, AscDiags *d)
{
    AscOutSet *own = s ? NULL : asc_out_new(NULL);
    AscOutSet *t = s ? s : own;
    if (!t) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    FILE *f = asc_out_open(t, path, d);
    bool ok = f != NULL;
    if (ok && len && fwrite(buf, 1, len, f) != len) {
        Ent *e = find_stream(t, f);
        e->failed = true;
        io_err(d, "write", path, errno);
        ok = false;
    }
    if (ok) ok = asc_out_close(t, f, d);
    if (own) {
        ok = ok && asc_out_commit(own, d);
        asc_out_free(own);
    }
    return ok;
}

const char *asc_out_open_dir(AscOutSet *s, const char *dir, AscDiags *d)
{
    /* "out/" and "out" are the same directory: drop trailing slashes */
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    char *dst = asc_malloc(&s->alloc, n + 1);
    if (!dst) {
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    memcpy(dst, dir, n);
    dst[n] = 0;
    remove_stale(dst);
    char *pre = tmp_prefix(s, dst);
    if (!pre) {
        asc_free(&s->alloc, dst);
        if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
        return NULL;
    }
    strcat(pre, "XXXXXX");
    if (!mkdtemp(pre)) {
        io_err(d, "create a directory beside", dst, errno);
        asc_free(&s->alloc, pre);
        asc_free(&s->alloc, dst);
        return NULL;
    }
    Ent *e = add(s, ENT_DIR, pre, dst, d);
    return e ? e->tmp : NULL;
}

bool asc_out_dir_done(AscOutSet *s, const char *tmpdir, AscDiags *d)
{
    int di = -1;
    for (int i = 0; i < s->n; i++)
        if (s->live[i] && s->e[i].kind == ENT_DIR && s->e[i].tmp == tmpdir) di = i;
    if (di < 0) return false;
    DIR *dp = opendir(tmpdir);
    if (!dp) {
        s->e[di].failed = true;
        io_err(d, "read", tmpdir, errno);
        return false;
    }
    bool ok = true;
    struct dirent *de;
    while ((de = readdir(dp))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *tmp = dup_str(s, tmpdir, "/"), *t2 = tmp ? dup_str(s, tmp, de->d_name) : NULL;
        char *dst = dup_str(s, s->e[di].path, "/"), *d2 = dst ? dup_str(s, dst, de->d_name) : NULL;
        asc_free(&s->alloc, tmp);
        asc_free(&s->alloc, dst);
        if (!t2 || !d2) {
            asc_free(&s->alloc, t2);
            asc_free(&s->alloc, d2);
            if (d) asc_diag(d, ASC_DIAG_OOM, (AscLoc){0});
            ok = false;
            break;
        }
        if (!add(s, ENT_CHILD, t2, d2, d)) {
            ok = false;
            break;
        }
    }
    closedir(dp);
    if (!ok) s->e[di].failed = true;
    return ok;
}

/* Forget entry i: it was renamed into place or removed. */
static void drop(AscOutSet *s, int i)
{
    s->live[i] = 0;
    asc_free(&s->alloc, s->e[i].tmp);
    asc_free(&s->alloc, s->e[i].path);
    s->e[i].tmp = s->e[i].path = NULL;
}

static void remove_ent(AscOutSet *s, int i)
{
    Ent *e = &s->e[i];
    if (e->f) fclose(e->f), e->f = NULL;
    if (e->kind == ENT_DIR) rmdir(e->tmp);
    else if (e->kind != ENT_DEV) unlink(e->tmp);
    drop(s, i);
}

void asc_out_abort(AscOutSet *s)
{
    if (!s) return;
    for (int i = s->n - 1; i >= 0; i--)
        if (s->live[i]) remove_ent(s, i);
    s->n = 0;
}

/* Three passes, so that nothing is renamed unless everything can be: close
 * every stream (a failed write shows here), make every target directory,
 * then rename. */
bool asc_out_commit(AscOutSet *s, AscDiags *d)
{
    bool ok = true;
    for (int i = 0; i < s->n; i++)
        if (s->live[i] && !close_ent(&s->e[i], d)) ok = false;
    for (int i = 0; ok && i < s->n; i++) {
        Ent *e = &s->e[i];
        if (!s->live[i] || e->kind != ENT_DIR) continue;
        struct stat st;
        if (mkdir(e->path, 0777) != 0 && !(errno == EEXIST && stat(e->path, &st) == 0 && S_ISDIR(st.st_mode))) {
            io_err(d, "create the directory", e->path, errno == EEXIST ? ENOTDIR : errno);
            ok = false;
        }
    }
    for (int i = 0; ok && i < s->n; i++) {
        Ent *e = &s->e[i];
        if (!s->live[i] || e->kind == ENT_DIR) continue; /* a staged directory goes once its files moved */
        if (e->kind == ENT_DEV) {                         /* written already, nothing to move */
            drop(s, i);
            continue;
        }
        if (rename(e->tmp, e->path) != 0) {
            io_err(d, "rename into place as", e->path, errno);
            ok = false;
            continue;
        }
        drop(s, i);
    }
    asc_out_abort(s); /* what is left: directories emptied by the renames, or everything after a failure */
    return ok;
}

void asc_out_signal_cleanup(AscOutSet *s)
{
    for (int i = s->n - 1; i >= 0; i--) {
        if (!s->live[i] || s->e[i].kind == ENT_DEV) continue;
        if (s->e[i].kind == ENT_DIR) rmdir(s->e[i].tmp);
        else unlink(s->e[i].tmp);
    }
}

void asc_out_free(AscOutSet *s)
{
    if (!s) return;
    asc_out_abort(s);
    AscAlloc a = s->alloc;
    asc_free(&a, s);
}

bool asc_out_same_file(const char *a, const char *b)
{
    if (!strcmp(a, b)) return true;
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

bool asc_out_check_inputs(const char *out, const char *const *ins, unsigned nins, AscDiags *d)
{
    for (unsigned i = 0; i < nins; i++)
        if (ins[i] && asc_out_same_file(out, ins[i])) {
            if (d) asc_diag(d, ASC_DIAG_SAME_FILE, (AscLoc){0}, out, ins[i]);
            return false;
        }
    return true;
}
