/* target.h -- the legality rules of a target: which decoded instructions
 * a core kind (AIV, AIC, coupled) of a target profile accepts.
 *
 * One function decides, asc_target_check_insn; its callers only place the
 * answer: the assembler as diagnostics under the offending operand, the
 * simulator as an ILLEGAL fault, pyasc through libasc.  Each rule is an
 * ID of the "target-aware checks" section of isa/asc_diag.def, where its
 * text is worded once; the rule's arguments travel in AscTargetRule.
 *
 * The rules (asc_target_check_insn checks them in this order):
 *   INSN_CORE    the instruction's pipe or K_AIV/K_AIC flag excludes the
 *                core kind (asc_config_insn_legal); no further rule is
 *                checked then
 *   EVENT_RANGE  set_flag/wait_flag: event id >= config key event_ids
 *   SYNC_PAIR    set_flag/wait_flag: (psrc, pdst) is not a legal flag
 *                pair of the core kind (asc_config_sync_legal)
 *   BAR_SCALAR   bar s, on every core
 *   BAR_PIPE     bar on a pipe the core kind does not have (bar all is
 *                always legal)
 *   PIPE_CORE    set_cross_core on a pipe the core kind does not have
 *                (including all: the increment is queued on one pipe) */
#ifndef ASC_TARGET_H
#define ASC_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "asc/config.h"
#include "asc/diag.h"
#include "asc/isa.h"

/* At most this many rules can be broken by one instruction (EVENT_RANGE
 * and SYNC_PAIR together). */
#define ASC_TARGET_MAX_BROKEN 2

/* One broken rule and its arguments. */
typedef struct AscTargetRule {
    AscDiagId id;         /* ASC_DIAG_INSN_CORE, _EVENT_RANGE, _SYNC_PAIR, _BAR_SCALAR, _BAR_PIPE, _PIPE_CORE */
    AscFieldKind field;   /* operand the rule is about; ASC_FK_PSRC for a flag pair (psrc..pdst);
                             ASC_FK_COUNT for the instruction itself (its mnemonic) */
    AscCoreKind core;
    uint16_t op;          /* AscOp */
    uint8_t pipe, pipe2;  /* BAR_PIPE, PIPE_CORE: the pipe; SYNC_PAIR: psrc, pdst */
    unsigned value, max;  /* EVENT_RANGE: the event id and the largest legal one */
    const char *target;   /* the profile's name (points into the AscConfig) */
} AscTargetRule;

/* Checks `in` against every rule for a `core` of target `cfg`.  Writes the
 * broken rules to out[] in the order above and returns their number; 0
 * means the instruction is legal there. */
unsigned asc_target_check_insn(const AscConfig *cfg, AscCoreKind core, const AscInsn *in,
                               AscTargetRule out[ASC_TARGET_MAX_BROKEN]);

/* The rule's message (its asc_diag.def text with the arguments filled in):
 * recorded in `d` at `loc`, or written to buf[0..n) like snprintf (the
 * return value is snprintf's). */
void asc_target_rule_diag(const AscTargetRule *r, AscDiags *d, AscLoc loc);
int asc_target_rule_text(const AscTargetRule *r, char *buf, size_t n);

/* The same check for callers that do not compile against isa.h (pyasc
 * through ctypes): the instruction `mnemonic` ("bar", "set_flag", ...) with
 * operands pipe, psrc, pdst and event (AscPipe values and an event id; the
 * other fields zero) on a `core` of `cfg`.  Returns the number of broken
 * rules and writes the first one's text to buf[0..n) (like snprintf; "" when
 * none is broken), or -1 when there is no such mnemonic. */
int asc_target_check_op(const AscConfig *cfg, AscCoreKind core, const char *mnemonic, unsigned pipe, unsigned psrc,
                        unsigned pdst, unsigned event, char *buf, size_t n);

#endif
