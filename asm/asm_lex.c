/* asm_lex.c -- tokens of one source line, constant expressions, and the
 * float rounding used by .float16/.bfloat16/.float.
 *
 * Users: asm.c and asm_insn.c.  The lexer never reads past the line it was
 * given (lines are not NUL-terminated; a NUL byte is just a bad character)
 * and reports BAD_CHAR / BAD_NUMBER / BAD_STRING itself, returning a T_ERR
 * token after which the caller drops the rest of the statement.
 *
 * Expressions are 64-bit two's complement.  Literals up to 2^64-1 denote
 * their bit pattern.  +, -, *, / and unary - report EXPR_OVERFLOW when the
 * signed result does not fit; / and % by zero report DIV_ZERO; << and >>
 * take counts 0..63 (>> is arithmetic).  A symbol not defined above the
 * statement is a forward reference: the value is marked `fwd` (and is 0 in
 * pass 1, where arithmetic on it never reports errors). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_int.h"

/* ---- lexer ----------------------------------------------------------------- */

static bool is_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.'; }
static bool is_ident_char(int c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

void lex_init(Lex *lx, Job *j, const char *s, uint32_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->job = j;
    lx->s = s;
    lx->len = len;
    lex_next(lx);
}

static void lex_error(Lex *lx, AscDiagId id, uint32_t start, uint32_t end, const char *a, const char *b)
{
    lx->t.kind = T_ERR;
    lx->t.p = lx->s + start;
    lx->t.col = start + 1;
    lx->t.len = end > start ? end - start : 1;
    lx->pos = lx->len; /* drop the rest of the line */
    if (!lx->quiet) job_err(lx->job, id, job_loc(lx->job, start + 1, lx->t.len), a, b);
}

static int digit_value(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

/* number := "0x" hexdigit+ | "0b" bindigit+ | digit+ ("." digit+)? ([eE] [+-]? digit+)?
 * with '_' allowed between digits; a number with a fraction or exponent is a
 * T_FLOAT (only the float data directives accept it). */
static void lex_number(Lex *lx, uint32_t start)
{
    const char *s = lx->s;
    uint32_t p = start, n = lx->len;
    unsigned base = 10;
    bool isfloat = false;
    if (s[p] == '0' && p + 1 < n && (s[p + 1] == 'x' || s[p + 1] == 'X')) base = 16, p += 2;
    else if (s[p] == '0' && p + 1 < n && (s[p + 1] == 'b' || s[p + 1] == 'B')) base = 2, p += 2;
    uint32_t dstart = p;
    while (p < n && ((unsigned)digit_value((unsigned char)s[p]) < base || s[p] == '_')) p++;
    if (base == 10) {
        if (p + 1 < n && s[p] == '.' && is_digit((unsigned char)s[p + 1])) {
            isfloat = true;
            p++;
            while (p < n && (is_digit((unsigned char)s[p]) || s[p] == '_')) p++;
        }
        if (p < n && (s[p] == 'e' || s[p] == 'E')) {
            uint32_t q = p + 1;
            if (q < n && (s[q] == '+' || s[q] == '-')) q++;
            if (q < n && is_digit((unsigned char)s[q])) {
                isfloat = true;
                p = q;
                while (p < n && is_digit((unsigned char)s[p])) p++;
            }
        }
    }
    uint32_t end = p;
    while (end < n && is_ident_char((unsigned char)s[end])) end++;
    char text[48];
    uint32_t tl = end - start < 40 ? end - start : 40;
    memcpy(text, s + start, tl);
    strcpy(text + tl, end - start > 40 ? "..." : "");
    if (end != p) {
        lex_error(lx, ASC_DIAG_BAD_NUMBER, start, end, text,
                  base == 16 ? "hex digits are 0-9 and a-f" : base == 2 ? "binary digits are 0 and 1" : "decimal digits are 0-9");
        return;
    }
    bool any = false;
    uint64_t v = 0;
    if (!isfloat) {
        for (uint32_t i = dstart; i < p; i++) {
            if (s[i] == '_') continue;
            any = true;
            uint64_t dv = (uint64_t)digit_value((unsigned char)s[i]);
            if (v > (UINT64_MAX - dv) / base) {
                lex_error(lx, ASC_DIAG_BAD_NUMBER, start, end, text, "the value does not fit in 64 bits");
                return;
            }
            v = v * base + dv;
        }
        if (!any) {
            lex_error(lx, ASC_DIAG_BAD_NUMBER, start, end, text, "a number needs at least one digit");
            return;
        }
    }
    lx->t = (Tok){isfloat ? T_FLOAT : T_INT, s + start, p - start, start + 1, 0, v};
    lx->pos = p;
}

/* char := "'" (any printable character but '\' | "\" [nt0\\'"]) "'" */
static void lex_char(Lex *lx, uint32_t start)
{
    const char *s = lx->s;
    uint32_t p = start + 1, n = lx->len;
    uint64_t v = 0;
    if (p < n && s[p] == '\\' && p + 1 < n) {
        switch (s[p + 1]) {
        case 'n': v = '\n'; break;
        case 't': v = '\t'; break;
        case '0': v = 0; break;
        case '\\': v = '\\'; break;
        case '\'': v = '\''; break;
        case '"': v = '"'; break;
        default: lex_error(lx, ASC_DIAG_BAD_NUMBER, start, p + 2, "'\\?'", "escapes are \\n \\t \\0 \\\\ \\' \\\""); return;
        }
        p += 2;
    } else if (p < n && (unsigned char)s[p] >= 0x20 && (unsigned char)s[p] < 0x7f && s[p] != '\'') {
        v = (unsigned char)s[p++];
    } else {
        lex_error(lx, ASC_DIAG_BAD_NUMBER, start, p + 1 < n ? p + 1 : n, "'", "a character literal is one printable ASCII character in quotes");
        return;
    }
    if (p >= n || s[p] != '\'') {
        lex_error(lx, ASC_DIAG_BAD_NUMBER, start, p, "'", "a character literal ends with a quote");
        return;
    }
    lx->t = (Tok){T_INT, s + start, p + 1 - start, start + 1, 0, v};
    lx->pos = p + 1;
}

void lex_next(Lex *lx)
{
    const char *s = lx->s;
    uint32_t p = lx->pos, n = lx->len;
    while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\r' || s[p] == '\v' || s[p] == '\f')) p++;
    lx->pos = p;
    if (p >= n || s[p] == ';' || (s[p] == '/' && p + 1 < n && s[p + 1] == '/')) {
        lx->t = (Tok){T_EOL, s + p, 0, p + 1, 0, 0};
        lx->pos = n;
        return;
    }
    int c = (unsigned char)s[p];
    if (is_ident_start(c)) {
        uint32_t q = p;
        while (q < n && is_ident_char((unsigned char)s[q])) q++;
        lx->t = (Tok){T_IDENT, s + p, q - p, p + 1, 0, 0};
        lx->pos = q;
        return;
    }
    if (is_digit(c)) {
        lex_number(lx, p);
        return;
    }
    if (c == '\'') {
        lex_char(lx, p);
        return;
    }
    if (c == '"') {
        uint32_t q = p + 1;
        while (q < n && s[q] != '"' && s[q] != '\n') {
            if (s[q] == '\\' && q + 1 < n) q++;
            q++;
        }
        if (q >= n || s[q] != '"') {
            lex_error(lx, ASC_DIAG_BAD_STRING, p, n, NULL, NULL);
            return;
        }
        lx->t = (Tok){T_STR, s + p, q + 1 - p, p + 1, 0, 0};
        lx->pos = q + 1;
        return;
    }
    static const struct {
        char a, b;
        int code;
    } two[] = {{'<', '<', P_SHL}, {'>', '>', P_SHR}, {'<', '=', P_LE}, {'>', '=', P_GE},
               {'=', '=', P_EQ},  {'!', '=', P_NE},  {'&', '&', P_LAND}, {'|', '|', P_LOR}};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (c == two[i].a && p + 1 < n && s[p + 1] == two[i].b) {
            lx->t = (Tok){T_PUNCT, s + p, 2, p + 1, two[i].code, 0};
            lx->pos = p + 2;
            return;
        }
    if (strchr("+-*/%&|^~!(),:=<>", c) && c != 0) {
        lx->t = (Tok){T_PUNCT, s + p, 1, p + 1, c, 0};
        lx->pos = p + 1;
        return;
    }
    char shown[8];
    if (c >= 0x20 && c < 0x7f) snprintf(shown, sizeof shown, "%c", c);
    else snprintf(shown, sizeof shown, "\\x%02x", (unsigned)c);
    lex_error(lx, ASC_DIAG_BAD_CHAR, p, p + 1, shown, NULL);
}

Tok lex_peek(Lex *lx)
{
    Lex save = *lx;
    lx->quiet = true;
    lex_next(lx);
    Tok t = lx->t;
    *lx = save;
    return t;
}

bool lex_is(const Lex *lx, int punct) { return lx->t.kind == T_PUNCT && lx->t.punct == punct; }

bool lex_ident_is(const Lex *lx, const char *s)
{
    return lx->t.kind == T_IDENT && strlen(s) == lx->t.len && memcmp(lx->t.p, s, lx->t.len) == 0;
}

/* ---- expressions ------------------------------------------------------------ */

static bool parse_bin(Lex *lx, int min_prec, Val *out);

static int bin_prec(const Tok *t)
{
    if (t->kind != T_PUNCT) return -1;
    switch (t->punct) {
    case '*': case '/': case '%': return 10;
    case '+': case '-': return 9;
    case P_SHL: case P_SHR: return 8;
    case '<': case '>': case P_LE: case P_GE: return 7;
    case P_EQ: case P_NE: return 6;
    case '&': return 5;
    case '^': return 4;
    case '|': return 3;
    case P_LAND: return 2;
    case P_LOR: return 1;
    }
    return -1;
}

static AscLoc span(Job *j, uint32_t from_col, const Tok *last)
{
    uint32_t end = last->col + last->len;
    return job_loc(j, from_col, end > from_col ? end - from_col : 1);
}

static bool parse_unary(Lex *lx, Val *out);

/* primary := INT | CHAR | IDENT | "." | "(" expr ")" */
/* unary   := ("-" | "+" | "~" | "!") unary | primary */
static bool parse_unary_at(Lex *lx, Val *out)
{
    Job *j = lx->job;
    Tok t = lx->t;
    char buf[80];
    if (t.kind == T_PUNCT && (t.punct == '-' || t.punct == '+' || t.punct == '~' || t.punct == '!')) {
        lex_next(lx);
        Val v;
        if (!parse_unary(lx, &v)) return false;
        out->fwd = v.fwd;
        out->loc = job_loc(j, t.col, v.loc.col + v.loc.len - t.col);
        switch (t.punct) {
        case '-':
            if (v.v == INT64_MIN && !(v.fwd && j->pass == 1)) {
                job_err(j, ASC_DIAG_EXPR_OVERFLOW, out->loc);
                return false;
            }
            out->v = v.v == INT64_MIN ? 0 : -v.v;
            break;
        case '+': out->v = v.v; break;
        case '~': out->v = ~v.v; break;
        default: out->v = !v.v; break;
        }
        return true;
    }
    if (t.kind == T_INT) {
        out->v = (int64_t)t.ival;
        out->fwd = false;
        out->loc = tok_loc(j, &t);
        lex_next(lx);
        return true;
    }
    if (t.kind == T_PUNCT && t.punct == '(') {
        lex_next(lx);
        if (!parse_bin(lx, 0, out)) return false;
        if (!lex_is(lx, ')')) {
            if (lx->t.kind != T_ERR)
                job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &lx->t), "')' to close the '('", tok_str(&lx->t, buf, sizeof buf));
            return false;
        }
        out->loc = span(j, t.col, &lx->t);
        lex_next(lx);
        return true;
    }
    if (t.kind == T_IDENT) {
        out->loc = tok_loc(j, &t);
        lex_next(lx);
        if (t.len == 1 && t.p[0] == '.') {
            out->v = j->section == 0 ? (int64_t)j->stmt_pc : (int64_t)(ASC_GM_RODATA_BASE + j->stmt_pc);
            out->fwd = false;
            return true;
        }
        Sym *s = sym_find(j, t.p, t.len);
        if (s && sym_known(j, s)) {
            out->v = s->value;
            out->fwd = false;
            s->used = true;
            return true;
        }
        if (s && j->pass == 2) {
            out->v = s->value;
            out->fwd = true;
            s->used = true;
            return true;
        }
        if (!s && j->pass == 2) {
            job_err(j, ASC_DIAG_UNDEFINED_SYMBOL, out->loc, tok_str(&t, buf, sizeof buf));
            return false;
        }
        out->v = 0;
        out->fwd = true;
        return true;
    }
    if (t.kind != T_ERR)
        job_err(j, ASC_DIAG_EXPECTED, tok_loc(j, &t), "an expression", tok_str(&t, buf, sizeof buf));
    return false;
}

/* The recursion of expressions goes through here: each level is a '(' or a
 * unary operator, so bounding it bounds the C stack on hostile input. */
static bool parse_unary(Lex *lx, Val *out)
{
    if (lx->depth >= ASM_MAX_EXPR_DEPTH) {
        job_err(lx->job, ASC_DIAG_EXPR_DEPTH, tok_loc(lx->job, &lx->t), (unsigned)ASM_MAX_EXPR_DEPTH);
        lx->t.kind = T_ERR; /* callers drop the statement without a second message */
        lx->pos = lx->len;
        return false;
    }
    lx->depth++;
    bool ok = parse_unary_at(lx, out);
    lx->depth--;
    return ok;
}

/* expr := lor
 * lor  := land ("||" land)*          land := bor ("&&" bor)*
 * bor  := bxor ("|" bxor)*           bxor := band ("^" band)*
 * band := eq ("&" eq)*               eq   := rel (("==" | "!=") rel)*
 * rel  := shift (("<" | "<=" | ">" | ">=") shift)*
 * shift := add (("<<" | ">>") add)*  add := mul (("+" | "-") mul)*
 * mul  := unary (("*" | "/" | "%") unary)*
 * (C precedence; parsed by precedence climbing.) */
static bool parse_bin(Lex *lx, int min_prec, Val *out)
{
    Job *j = lx->job;
    if (!parse_unary(lx, out)) return false;
    for (;;) {
        int prec = bin_prec(&lx->t);
        if (prec < 0 || prec < min_prec) return true;
        Tok op = lx->t;
        lex_next(lx);
        Val r;
        if (!parse_bin(lx, prec + 1, &r)) return false;
        int64_t a = out->v, b = r.v, v = 0;
        bool fwd = out->fwd || r.fwd;
        bool lenient = fwd && j->pass == 1;
        AscLoc loc = job_loc(j, out->loc.col, r.loc.col + r.loc.len - out->loc.col);
        bool ovf = false;
        switch (op.punct) {
        case '+': ovf = __builtin_add_overflow(a, b, &v); break;
        case '-': ovf = __builtin_sub_overflow(a, b, &v); break;
        case '*': ovf = __builtin_mul_overflow(a, b, &v); break;
        case '/':
        case '%':
            if (b == 0) {
                if (lenient) break;
                job_err(j, ASC_DIAG_DIV_ZERO, loc);
                return false;
            }
            if (a == INT64_MIN && b == -1) {
                if (op.punct == '/') ovf = true;
                break;
            }
            v = op.punct == '/' ? a / b : a % b;
            break;
        case P_SHL:
        case P_SHR:
            if (b < 0 || b > 63) {
                if (lenient) break;
                char num[32];
                snprintf(num, sizeof num, "%lld", (long long)b);
                job_err(j, ASC_DIAG_BAD_OPERAND, r.loc, "shift count", num, "shift counts are 0..63");
                return false;
            }
            v = op.punct == P_SHL ? (int64_t)((uint64_t)a << b) : (a < 0 ? ~(~a >> b) : a >> b);
            break;
        case '<': v = a < b; break;
        case '>': v = a > b; break;
        case P_LE: v = a <= b; break;
        case P_GE: v = a >= b; break;
        case P_EQ: v = a == b; break;
        case P_NE: v = a != b; break;
        case '&': v = a & b; break;
        case '^': v = a ^ b; break;
        case '|': v = a | b; break;
        case P_LAND: v = a && b; break;
        case P_LOR: v = a || b; break;
        }
        if (ovf && !lenient) {
            job_err(j, ASC_DIAG_EXPR_OVERFLOW, loc);
            return false;
        }
        out->v = ovf ? 0 : v;
        out->fwd = fwd;
        out->loc = loc;
    }
}

bool parse_expr(Lex *lx, Val *out)
{
    memset(out, 0, sizeof *out);
    return parse_bin(lx, 0, out);
}

/* ---- floats ---------------------------------------------------------------- */

uint32_t float_bits(double x, unsigned mbits, unsigned ebits)
{
    uint32_t sign = signbit(x) ? 1u << (mbits + ebits) : 0;
    uint32_t inf = ((1u << ebits) - 1) << mbits;
    if (isnan(x)) return sign | inf | (1u << (mbits - 1));
    double a = fabs(x);
    if (isinf(a)) return sign | inf;
    if (a == 0) return sign;
    int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias, ex;
    frexp(a, &ex);
    int e = ex - 1; /* a = 1.f * 2^e */
    bool sub = e < emin;
    /* q = a in units of the last mantissa place: exact, since it only scales
     * by a power of two; q < 2^(mbits+1). */
    double q = ldexp(a, -((sub ? emin : e) - (int)mbits));
    double r = floor(q), frac = q - r;
    if (frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) != 0)) r += 1;
    /* Encodings are contiguous: a subnormal of 2^mbits ulps is the smallest
     * normal, a mantissa of 2^(mbits+1) is the next binade. */
    double bits = sub ? r : (double)(e + bias - 1) * ldexp(1, (int)mbits) + r;
    if (bits >= (double)inf) return sign | inf;
    return sign | (uint32_t)bits;
}
