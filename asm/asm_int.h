/* asm_int.h -- private state of the assembler, shared by the asm/ sources only.
 *
 * Role: one AscAsm per user; one Job per asc_asm_file/asc_asm_string call.
 * The job runs the whole source twice (pass 1 defines symbols and lays out
 * code silently, pass 2 reports every diagnostic and emits words).  Both
 * passes run the same code, so every statement has the same size in both:
 * sizes may depend only on values known *above* the statement (a symbol is
 * "known" at a statement when it was defined earlier in source order, which
 * is the same in both passes).
 *
 * Memory: every allocation of a job goes through job_alloc / the growable
 * vectors below and is freed when the job ends; on allocation failure the
 * job longjmps to its entry point, which frees everything and reports OOM.
 * Files read stay in the AscAsm until the next job or asc_asm_free, so the
 * CLI can quote source lines after asc_asm_file returned.
 *
 * Users: asm.c (driver, directives, image), asm_lex.c (tokens,
 * expressions, floats), asm_insn.c (instructions, pseudos, target checks). */
#ifndef ASC_ASM_INT_H
#define ASC_ASM_INT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "asc/asm.h"
#include "asc/config.h"
#include "asc/isa.h"

#define ASM_MAX_INCLUDE_DEPTH 16
#define ASM_MAX_ALIGN 4096
#define ASM_MAX_EXPR_DEPTH 256              /* nested parentheses and unary operators */
#define ASM_MAX_SECTION_BYTES (64u << 20)   /* .text or .rodata: offsets never near 2^32 */

/* ---- files --------------------------------------------------------------- */

typedef struct SrcFile {
    char *path; /* as opened: relative to the including file's directory */
    char *text; /* owned, allocated with the AscAsm allocator */
    size_t len;
    const char *why; /* text NULL: why it could not be read (a static string), named again in pass 2 */
} SrcFile;

struct AscAsm {
    AscAlloc alloc;
    AscAsmDesc desc;
    char *target; /* copy of desc.target */
    AscDiags diags;
    SrcFile *files;
    uint32_t nfiles, capfiles;
};

/* ---- tokens -------------------------------------------------------------- */

typedef enum TokKind { T_EOL, T_IDENT, T_INT, T_FLOAT, T_STR, T_PUNCT, T_ERR } TokKind;

/* Two-character operators get codes above 255; one-character ones are the
 * character itself. */
enum { P_SHL = 256, P_SHR, P_LE, P_GE, P_EQ, P_NE, P_LAND, P_LOR };

typedef struct Tok {
    TokKind kind;
    const char *p; /* start in the line */
    uint32_t len;
    uint32_t col;  /* 1-based */
    int punct;     /* T_PUNCT */
    uint64_t ival; /* T_INT (also character literals) */
} Tok;

typedef struct Job Job;

/* A cursor over one line.  `t` is the current token; `pos` is just after it. */
typedef struct Lex {
    Job *job;
    const char *s;
    uint32_t len, pos;
    Tok t;
    bool quiet; /* lookahead scans: report nothing */
    uint32_t depth; /* expression nesting (parse_unary), bounded by ASM_MAX_EXPR_DEPTH */
} Lex;

/* ---- symbols and kernels --------------------------------------------------- */

typedef enum SymKind { SYM_TEXT, SYM_RODATA, SYM_EQU } SymKind;

typedef struct Sym {
    const char *name;
    uint32_t nlen;
    SymKind kind;
    int64_t value;
    uint64_t def_order; /* 2*seq for labels, 2*seq+1 for .equ (see sym_known) */
    uint32_t file, line, col;
    bool used;
} Sym;

typedef struct Kernel {
    AscKernelInfo info;
    AscLoc loc;        /* of the .kernel directive, for KERNEL_EMPTY */
    int part;          /* current program: ASC_PART_AIV / ASC_PART_AIC, -1 none yet */
    bool seen[ASC_PART_COUNT];
    AscLoc part_loc[ASC_PART_COUNT];
    uint16_t last_op[ASC_PART_COUNT]; /* last instruction written by the user (not .align padding) */
    AscLoc last_loc[ASC_PART_COUNT];
    bool recovery;     /* opened after a broken .kernel line, only to check its body: never in an image */
    bool any_kind;     /* recovery with no known kind: the target's core-kind rules are not checked */
} Kernel;

/* ---- the job ------------------------------------------------------------- */

struct Job {
    AscAsm *as;
    AscDiags *d;
    jmp_buf oom;
    int pass; /* 1 or 2 */
    bool stop; /* too many errors */

    /* arena for names */
    struct ArenaBlock *arena;

    Sym *syms; /* open-addressing hash table, capacity a power of two */
    uint32_t nsyms, capsyms;

    uint64_t seq; /* statement counter, identical in both passes */
    int section;  /* 0 = .text, 1 = .rodata */
    uint32_t pc;  /* bytes of .text so far */
    uint32_t ro;  /* bytes of .rodata so far */
    bool full;    /* a section reached ASM_MAX_SECTION_BYTES: nothing more is laid out */

    /* pass 2 output */
    uint32_t *text;
    uint32_t captext;
    uint8_t *rodata;
    uint32_t caprodata;
    AscLineEntry *lines;
    uint32_t nlines, caplines;
    const char **ofiles; /* image file table: names */
    uint32_t nofiles, capofiles;

    Kernel *kernels;
    uint32_t nkernels, capkernels;
    int cur; /* index of the current kernel, -1 before the first */
    bool bad_kernel; /* the last .kernel line was broken (reported): no NO_KERNEL cascade */

    /* .loc state */
    bool loc_on;
    uint32_t loc_file, loc_line, loc_col;

    /* target */
    const char *file_target; /* first .target name seen (arena) */
    AscLoc file_target_loc;  /* where: a profile that does not load is reported there */
    AscConfig cfg;
    bool cfg_ok;

    /* include stack: indexes into as->files */
    uint32_t inc[ASM_MAX_INCLUDE_DEPTH + 1];
    uint32_t depth;

    /* the statement being assembled */
    uint32_t file, line;
    const char *line_text;
    uint32_t line_len;
    uint32_t stmt_pc; /* value of '.' */
    uint32_t stmt_col;
};

/* asm.c */
void *job_alloc(Job *j, size_t size);           /* arena; longjmps on OOM */
void job_grow(Job *j, void **p, uint32_t *cap, uint32_t need, size_t elem); /* longjmps on OOM */
AscLoc job_loc(Job *j, uint32_t col, uint32_t len);
AscLoc tok_loc(Job *j, const Tok *t);
void job_err(Job *j, AscDiagId id, AscLoc loc, ...);
Sym *sym_find(Job *j, const char *name, size_t len);
bool sym_known(Job *j, const Sym *s);
void emit_word(Job *j, uint32_t word, uint32_t col, bool user);
bool in_text_kernel(Job *j, const Tok *at);
const char *tok_str(const Tok *t, char *buf, size_t size);

/* asm_lex.c */
void lex_init(Lex *lx, Job *j, const char *s, uint32_t len);
void lex_next(Lex *lx);
Tok lex_peek(Lex *lx); /* the token after the current one */
bool lex_is(const Lex *lx, int punct);
bool lex_ident_is(const Lex *lx, const char *s);

typedef struct Val {
    int64_t v;
    bool fwd; /* uses a symbol not known above this statement (pass 1: v is 0) */
    AscLoc loc; /* span of the whole expression */
} Val;
/* expr := see asm_lex.c.  Returns false after reporting an error. */
bool parse_expr(Lex *lx, Val *out);
/* Round a double to an IEEE format with `mbits` mantissa and `ebits`
 * exponent bits, to nearest even; returns the bit pattern. */
uint32_t float_bits(double x, unsigned mbits, unsigned ebits);

/* asm_insn.c */
void asm_insn(Job *j, Lex *lx); /* current token: the mnemonic */
void emit_li(Job *j, unsigned rd, uint64_t v, bool fixed4, uint32_t col);

#endif
