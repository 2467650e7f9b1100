/* asc_as_main.c -- asc-as: assemble one .s file into a kernel binary.
 *
 *   asc-as [-o out.bin] [--target NAME] [-Werror] [--help] [--version] file.s
 *
 * A thin CLI: libasc assembles and writes; this file parses flags, prints
 * diagnostics (file:line:col, the source line, a caret) and picks the exit
 * code: 0 ok, 1 user error (bad flag, unreadable input, assembly errors),
 * 2 internal error (out of memory).  On any error no output file is
 * written and an existing one is left untouched (the loader writes to an
 * exclusive temporary beside it and renames it into place, asc/outfile.h;
 * SIGINT and SIGTERM remove the temporary); an output that is one of the
 * files read (the input or an .include, also through a link) is an error. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asc/asm.h"
#include "asc/config.h"
#include "asc/image.h"

static const char usage[] = "usage: asc-as [-o out.bin] [--target NAME] [-Werror] [--help] [--version] file.s\n";

static void help(void)
{
    printf("%s\n"
           "Assemble an asc kernel (docs/assembly.md) into a kernel binary.\n"
           "  -o FILE        output file (default: the input with .s replaced by .bin)\n"
           "  --target NAME  target profile (default %s; built in: %s);\n"
           "                 a .target in the file must name the same one\n"
           "  -Werror        treat warnings as errors\n"
           "  --help         show this help\n"
           "  --version      show the version\n"
           "Exit status: 0 ok, 1 bad usage or assembly errors (no output written), 2 internal error.\n",
           usage, ASC_DEFAULT_TARGET, asc_config_builtin_list());
}

/* "dir/k.s" -> "dir/k.bin"; any other name gets ".bin" appended. */
static char *default_output(const char *in)
{
    size_t n = strlen(in);
    char *out = malloc(n + 5);
    if (!out) return NULL;
    memcpy(out, in, n + 1);
    if (n > 2 && strcmp(in + n - 2, ".s") == 0) n -= 2;
    strcpy(out + n, ".bin");
    return out;
}

/* The output's temporary, for on_signal.  The one static of this file: a
 * signal handler gets no argument, so the set must be reachable from it. */
static AscOutSet *volatile outputs;

static void on_signal(int sig)
{
    AscOutSet *s = outputs;
    if (s) asc_out_signal_cleanup(s);
    raise(sig); /* SA_RESETHAND restored the default: die of the signal */
}

/* Write the image through a set whose temporary the signal handler removes;
 * false + diagnostics in wd (SAME_FILE when `path` is a file just read). */
static bool write_output(const AscAsm *as, const AscImage *img, const char *path, AscDiags *wd)
{
    for (uint32_t i = 0; asc_asm_input(as, i); i++) {
        const char *in = asc_asm_input(as, i);
        if (!asc_out_check_inputs(path, &in, 1, wd)) return false;
    }
    AscOutSet *s = asc_out_new(NULL);
    if (!s) {
        asc_diag(wd, ASC_DIAG_OOM, (AscLoc){0});
        return false;
    }
    outputs = s;
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    /* blocked from here to the end: a signal between a temporary's creation and its entry in
     * the set would leave it behind (the write is one small image, so Ctrl-C waits little) */
    sigprocmask(SIG_BLOCK, &block, NULL);
    bool ok = asc_image_write_to(img, path, s, wd);
    ok = ok && asc_out_commit(s, wd);
    outputs = NULL;
    asc_out_free(s);
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    return ok;
}

static bool only_oom(const AscDiags *d)
{
    if (d->oom) return true;
    for (uint32_t i = 0; i < d->count; i++)
        if (d->items[i].sev == ASC_SEV_ERROR && d->items[i].id != ASC_DIAG_OOM) return false;
    return d->count > 0;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *in = NULL, *target = NULL;
    bool werror = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help();
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("asc-as %s\n", ASC_VERSION);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--target")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "asc-as: error: %s needs an argument\n%s", a, usage);
                return 1;
            }
            if (!strcmp(a, "-o")) out = argv[++i];
            else target = argv[++i];
        } else if (!strncmp(a, "--target=", 9)) {
            target = a + 9;
        } else if (!strcmp(a, "-Werror")) {
            werror = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "asc-as: error: unknown option '%s'\n%s", a, usage);
            return 1;
        } else if (in) {
            fprintf(stderr, "asc-as: error: more than one input file ('%s' and '%s')\n%s", in, a, usage);
            return 1;
        } else {
            in = a;
        }
    }
    if (!in) {
        fprintf(stderr, "asc-as: error: no input file\n%s", usage);
        return 1;
    }

    AscAsmDesc desc = {.target = target, .werror = werror};
    AscAsm *as = asc_asm_new(&desc);
    if (!as) {
        fprintf(stderr, "asc-as: error: out of memory\n");
        return 2;
    }
    AscImage img;
    asc_image_init(&img, NULL);
    bool ok = asc_asm_file(as, in, &img);
    const AscDiags *d = asc_asm_diags(as);
    asc_diags_print(d, stderr, asc_asm_source_line, as);
    int rc = 0;
    if (!ok) {
        rc = only_oom(d) ? 2 : 1;
    } else {
        char *def = out ? NULL : default_output(in);
        const char *path = out ? out : def;
        AscDiags wd;
        asc_diags_init(&wd, NULL);
        if (!path) {
            fprintf(stderr, "asc-as: error: out of memory\n");
            rc = 2;
        } else if (!write_output(as, &img, path, &wd)) {
            asc_diags_print(&wd, stderr, NULL, NULL);
            rc = only_oom(&wd) ? 2 : 1;
        }
        asc_diags_free(&wd);
        free(def);
    }
    asc_image_free(&img);
    asc_asm_free(as);
    return rc;
}
