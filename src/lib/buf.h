/* A byte buffer with a mandatory ceiling, in the manner of OpenSSH's sshbuf
 * and curl's dynbuf: growth past the ceiling fails instead of allocating
 * what an attacker asked for. Contents are wiped on reset and free, so a
 * buffer that held a secret or file-derived bytes leaves nothing behind. */
#ifndef LOCKFILE_BUF_H
#define LOCKFILE_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf;

struct buf *buf_new(size_t max);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);

/* 0 on success, -1 when the ceiling would be passed (buffer unchanged). */
int buf_append(struct buf *b, const void *data, size_t len);
int buf_putc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

const uint8_t *buf_data(const struct buf *b);
/* NUL-terminated view (a NUL is kept after the data, never counted). */
const char *buf_str(const struct buf *b);
size_t buf_len(const struct buf *b);
size_t buf_max(const struct buf *b);
/* Drop the first n bytes. */
void buf_consume(struct buf *b, size_t n);

#endif
