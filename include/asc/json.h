/* json.h -- the one JSON string writer of the tools (docs/internals.md
 * §Conventions): every string a tool puts into a JSON output goes through
 * it, so quotes, backslashes and control bytes are always escaped (cJSON's
 * printer does the escaping).
 *
 * Invalid UTF-8: JSON text is UTF-8 (RFC 8259 §8.1), so a byte sequence
 * that is not UTF-8 cannot be written as is.  Names a user chooses (profile
 * names and descriptions) are checked where they are read, with an error
 * naming the rule (asc_utf8_valid, target/config.c); any other text (a
 * source path in a trace) has each invalid byte written as U+FFFD, so the
 * output is valid JSON whatever the input. */
#ifndef ASC_JSON_H
#define ASC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "asc/alloc.h"

/* true when s is well-formed UTF-8 (no overlong forms, surrogates or code
 * points past U+10FFFF). */
bool asc_utf8_valid(const char *s);
/* s as a JSON string with its quotes, allocated with alloc (NULL: malloc);
 * NULL when out of memory. */
char *asc_json_quote(const char *s, const AscAlloc *alloc);
/* The length of s's first part that a JSON string holds unchanged (printable ASCII other than
 * '"' and '\\'): when it is strlen(s), asc_json_quote(s) is s between two quotes. */
size_t asc_json_plain(const char *s);
/* Write s to f as a JSON string: with its quotes, or (quotes false) only
 * the body, for a caller that prints the quotes itself.  false when out of
 * memory (nothing written) or the write failed. */
bool asc_json_put(FILE *f, const char *s, bool quotes);

/* Where text follows a JSON document's top-level value: `end` is where the parser stopped
 * (cJSON's return_parse_end) in json[0, len); the first byte from there that is neither JSON
 * whitespace nor a NUL ending the text, or NULL when there is none.  `{...} garbage` parses as
 * the object alone: a reader of user files refuses it (the rest may be an edit gone wrong). */
const char *asc_json_trailing(const char *end, const char *json, size_t len);

/* The members of a JSON object from a name table: `"name(i)": value(i)` for i in [from, to),
 * separated by ", " (no braces); value NULL writes i itself, a NULL name writes "".  For the
 * generators' enum and size maps (isa/gen_isa.c, tools/gen_abi.c).  false when a write failed. */
bool asc_json_name_map(FILE *f, const char *(*name)(unsigned), unsigned from, unsigned to,
                       unsigned (*value)(unsigned));

#endif
