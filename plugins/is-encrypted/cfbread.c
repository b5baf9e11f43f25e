/* The compound file reader shared by is-encrypted and has-active-content
 * ([MS-CFB]; cfbread.h). The directory's sector chain is followed through
 * the FAT (and the DIFAT beyond the header's 109 entries), at most
 * ENC_CFB_DIR_SECTORS sectors; the tree is walked from the root, every
 * storage's children too, each entry at most once. A header, chain or
 * tree out of rule: ENC_UNJUDGED. */
#include "cfbread.h"

#include <string.h>

#define ENDOFCHAIN 0xfffffffeu
#define NOSTREAM 0xffffffffu
#define MAXREGSECT 0xfffffffau
#define HEADER_DIFAT 109

struct cfb {
	const struct pdf_src *src;
	unsigned shift;		/* 9 (512-byte sectors) or 12 (4096) */
	uint32_t ssize, nsect;	/* sector size; sectors the file holds */
	uint32_t ndifat, difat1;
	uint8_t hdr[512];
	uint32_t fat_id;	/* the FAT sector in fat[], or NOSTREAM */
	uint8_t fat[4096];
	uint32_t ndir;
	uint32_t dir[ENC_CFB_DIR_SECTORS];
};

static uint64_t
sect_off(const struct cfb *f, uint32_t s)
{
	return ((uint64_t)s + 1) << f->shift;
}

/* The n-th FAT sector's number: from the header's DIFAT, then the DIFAT
 * chain (each of its sectors ends with the next one's number). */
static enum enc_answer
difat(struct cfb *f, uint32_t n, uint32_t *out)
{
	uint32_t per = f->ssize / 4 - 1, s = f->difat1, i;
	uint8_t b[4];
	enum enc_answer e;

	if (n < HEADER_DIFAT) {
		*out = enc_le32(f->hdr + 0x4c + 4 * n);
		return ENC_NO;
	}
	n -= HEADER_DIFAT;
	if (n / per >= f->ndifat)
		return ENC_UNJUDGED;
	for (i = 0; i < n / per; i++) {
		if (s >= f->nsect)
			return ENC_UNJUDGED;
		if ((e = enc_read(f->src, b, 4, sect_off(f, s) + per * 4)) !=
		    ENC_NO)
			return e;
		s = enc_le32(b);
	}
	if (s >= f->nsect)
		return ENC_UNJUDGED;
	if ((e = enc_read(f->src, b, 4, sect_off(f, s) + (n % per) * 4)) !=
	    ENC_NO)
		return e;
	*out = enc_le32(b);
	return ENC_NO;
}

static enum enc_answer
fat_next(struct cfb *f, uint32_t s, uint32_t *next)
{
	uint32_t per = f->ssize / 4, id;
	enum enc_answer e;

	if ((e = difat(f, s / per, &id)) != ENC_NO)
		return e;
	if (id >= f->nsect)
		return ENC_UNJUDGED;
	if (id != f->fat_id) {
		f->fat_id = NOSTREAM;
		if ((e = enc_read(f->src, f->fat, f->ssize, sect_off(f, id))) !=
		    ENC_NO)
			return e;
		f->fat_id = id;
	}
	*next = enc_le32(f->fat + (s % per) * 4);
	return ENC_NO;
}

static enum enc_answer
header(struct cfb *f)
{
	enum enc_answer e;
	uint16_t major;
	uint64_t n;

	if ((e = enc_read(f->src, f->hdr, 512, 0)) != ENC_NO)
		return e;
	major = enc_le16(f->hdr + 0x1a);
	f->shift = enc_le16(f->hdr + 0x1e);
	if (enc_le16(f->hdr + 0x1c) != 0xfffe ||
	    !((major == 3 && f->shift == 9) || (major == 4 && f->shift == 12)))
		return ENC_UNJUDGED;
	f->ssize = 1u << f->shift;
	/* A last sector cut short still counts (olefile pads it). */
	n = f->src->size <= f->ssize ? 0 :
	    (f->src->size - f->ssize + f->ssize - 1) >> f->shift;
	f->nsect = n > MAXREGSECT ? MAXREGSECT : (uint32_t)n;
	f->difat1 = enc_le32(f->hdr + 0x44);
	f->ndifat = enc_le32(f->hdr + 0x48);
	f->fat_id = NOSTREAM;
	return ENC_NO;
}

static enum enc_answer
dir_chain(struct cfb *f)
{
	uint32_t s = enc_le32(f->hdr + 0x30);
	enum enc_answer e;

	f->ndir = 0;
	while (s != ENDOFCHAIN) {
		if (s >= f->nsect || f->ndir == ENC_CFB_DIR_SECTORS)
			return ENC_UNJUDGED;	/* outside, or a loop */
		f->dir[f->ndir++] = s;
		if ((e = fat_next(f, s, &s)) != ENC_NO)
			return e;
	}
	return f->ndir > 0 ? ENC_NO : ENC_UNJUDGED;
}

static enum enc_answer
dirent(struct cfb *f, uint32_t i, uint8_t *d)
{
	uint32_t per = f->ssize / CFB_DIRENT;

	if (i / per >= f->ndir)
		return ENC_UNJUDGED;
	return enc_read(f->src, d, CFB_DIRENT, sect_off(f, f->dir[i / per]) +
	    (uint64_t)(i % per) * CFB_DIRENT);
}

enum enc_answer
cfb_walk(const struct pdf_src *src, cfb_entry_fn fn, void *arg)
{
	static struct cfb f;
	static uint32_t stack[2 * (ENC_CFB_DIR_SECTORS * 32 + 2)];
	static uint8_t seen[ENC_CFB_DIR_SECTORS * 32 / 8];
	uint8_t d[CFB_DIRENT];
	uint32_t top = 0, total, i, parent;
	enum enc_answer e;

	memset(&f, 0, sizeof(f));
	f.src = src;
	if ((e = header(&f)) != ENC_NO || (e = dir_chain(&f)) != ENC_NO)
		return e;
	total = f.ndir * (f.ssize / CFB_DIRENT);
	memset(seen, 0, sizeof(seen));
	if ((e = dirent(&f, 0, d)) != ENC_NO)
		return e;
	if (d[0x42] != 5)
		return ENC_UNJUDGED;	/* entry 0 is the root storage */
	seen[0] = 1;
	i = enc_le32(d + 0x4c);
	if (i != NOSTREAM) {
		stack[top++] = i;
		stack[top++] = 0;
	}
	while (top > 0) {
		parent = stack[--top];
		i = stack[--top];
		if (i >= total || (seen[i / 8] & (1u << (i % 8))))
			return ENC_UNJUDGED;	/* outside, or twice */
		seen[i / 8] |= (uint8_t)(1u << (i % 8));
		if ((e = dirent(&f, i, d)) != ENC_NO)
			return e;
		if (d[0x42] != 1 && d[0x42] != 2)
			return ENC_UNJUDGED;	/* a tree holds storages and
						 * streams only */
		if ((e = fn(arg, d, parent)) != ENC_NO)
			return e;
		/* Each new entry pushes at most three (pairs): the stack stays
		 * within twice the entries seen, plus one pair. */
		if (top + 6 > sizeof(stack) / sizeof(stack[0]))
			return ENC_UNJUDGED;
		if (enc_le32(d + 0x44) != NOSTREAM) {
			stack[top++] = enc_le32(d + 0x44);
			stack[top++] = parent;
		}
		if (enc_le32(d + 0x48) != NOSTREAM) {
			stack[top++] = enc_le32(d + 0x48);
			stack[top++] = parent;
		}
		if (d[0x42] == 1 && enc_le32(d + 0x4c) != NOSTREAM) {
			stack[top++] = enc_le32(d + 0x4c);
			stack[top++] = i;
		}
	}
	return ENC_NO;
}

int
cfb_name_is(const uint8_t *d, const char *lower)
{
	size_t n = strlen(lower), len = enc_le16(d + 0x40), i;

	if (len != 2 * n + 2 || n > 31)
		return 0;
	for (i = 0; i < n; i++) {
		uint16_t u = enc_le16(d + 2 * i);
		if (u >= 'A' && u <= 'Z')
			u = (uint16_t)(u - 'A' + 'a');
		if (u != (uint8_t)lower[i])
			return 0;
	}
	return 1;
}
