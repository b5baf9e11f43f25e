/* has-active-content, Office part (docs/plugins.md, "has-active-content"):
 * an OOXML package (a ZIP, zipread.c) and a legacy OLE2 document (a
 * compound file, cfbread.c).
 *
 * ZIP: active when a part name (compared case-insensitively, as OPC part
 * names are) is a VBA project (ends "vbaproject.bin"), lies under
 * "macrosheets/" (Excel 4.0 XLM), "activex/" or "embeddings/" (ActiveX
 * controls, embedded OLE objects and packages); when a relationship part
 * (".rels") has a relationship with TargetMode="External" whose Type ends
 * "/attachedTemplate" or "/oleObject" (a remote template, a linked
 * object); when a WordprocessingML part (under "word/") has a field whose
 * code begins DDE or DDEAUTO (w:instrText runs, joined from one
 * w:fldChar to the next, or w:fldSimple's w:instr); or when an Excel
 * external link part has a ddeLink element. Only .rels and word/ and
 * xl/externalLinks/ XML parts are inflated, each at most HAC_PART_MAX.
 *
 * OLE2: active when any storage of the tree is named Macros (Word),
 * _VBA_PROJECT_CUR (Excel) or VBA (compared case-insensitively). */
#include "hac_check.h"
#include "zipread.h"
#include "cfbread.h"

#include <string.h>

#define KEEP 128		/* names and attribute values compared */

static int
lower_ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix), i;

	if (n < k)
		return 0;
	for (i = 0; i < k; i++) {
		char ch = s[n - k + i];
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (ch != suffix[i])
			return 0;
	}
	return 1;
}

static int
lower_has(const char *s, size_t n, const char *sub)
{
	size_t k = strlen(sub), i;

	for (i = 0; i + k <= n; i++)
		if (lower_ends(s, i + k, sub))
			return 1;
	return 0;
}

/* A small XML tag scanner: start tags' local names, their attributes'
 * local names and values, and the text between tags. Comments,
 * declarations and processing instructions are skipped to '>'. */
enum { X_TEXT, X_NAME, X_ATTRS, X_ANAME, X_AEQ, X_AVAL, X_SKIP };

struct xml {
	int state, end_tag;
	char quote;
	char name[KEEP + 1], aname[KEEP + 1], aval[KEEP + 1];
	size_t nn, an, vn;
	/* what the part is checked for */
	int kind;		/* K_RELS, K_WORD, K_XLLINK */
	int active;
	/* K_RELS: the current Relationship's attributes */
	int external, typed;
	/* K_WORD: a field code being joined */
	int in_instr;
	char code[16];
	size_t cn;
};

enum { K_RELS, K_WORD, K_XLLINK };

static const char *
local(const char *name)
{
	const char *c = strrchr(name, ':');

	return c != NULL ? c + 1 : name;
}

static int
ieq_prefix(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	if (n < k)
		return 0;
	for (i = 0; i < k; i++) {
		char ch = s[i];
		if (ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		if (ch != w[i])
			return 0;
	}
	return 1;
}

/* Is the field code (leading blanks already dropped) DDE or DDEAUTO? */
static int
dde_code(const char *s, size_t n)
{
	if (ieq_prefix(s, n, "DDEAUTO"))
		return n == 7 || s[7] == ' ' || s[7] == '"' || s[7] == '\\';
	if (ieq_prefix(s, n, "DDE"))
		return n == 3 || s[3] == ' ' || s[3] == '"' || s[3] == '\\';
	return 0;
}

static void
field_char(struct xml *x, char ch)
{
	if (x->cn == 0 && (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'))
		return;
	if (x->cn < sizeof(x->code))
		x->code[x->cn++] = ch;
}

static void
field_end(struct xml *x)
{
	if (dde_code(x->code, x->cn))
		x->active = 1;
	x->cn = 0;
}

static void
attr_done(struct xml *x)
{
	const char *a = local(x->aname), *t = local(x->name);

	x->aname[x->an < KEEP ? x->an : KEEP] = '\0';
	x->aval[x->vn < KEEP ? x->vn : KEEP] = '\0';
	if (x->end_tag)
		return;
	if (x->kind == K_RELS && strcmp(t, "Relationship") == 0) {
		if (strcmp(a, "TargetMode") == 0 &&
		    strcmp(x->aval, "External") == 0)
			x->external = 1;
		if (strcmp(a, "Type") == 0 && x->vn <= KEEP &&
		    (lower_ends(x->aval, x->vn, "/attachedtemplate") ||
		    lower_ends(x->aval, x->vn, "/oleobject")))
			x->typed = 1;
	}
	if (x->kind == K_WORD && strcmp(t, "fldSimple") == 0 &&
	    strcmp(a, "instr") == 0) {
		size_t i;

		x->cn = 0;
		for (i = 0; i < x->vn && i < KEEP; i++)
			field_char(x, x->aval[i]);
		field_end(x);
	}
}

/* A tag's name is complete: what it starts or ends. */
static void
name_done(struct xml *x)
{
	const char *t;

	x->name[x->nn < KEEP ? x->nn : KEEP] = '\0';
	t = local(x->name);
	x->external = x->typed = 0;
	if (x->kind == K_WORD) {
		/* Field code is the text of w:instrText only: any other tag
		 * ends it (so an empty <w:instrText/> takes no later text). */
		x->in_instr = strcmp(t, "instrText") == 0 && !x->end_tag;
		if (strcmp(t, "fldChar") == 0 && !x->end_tag)
			field_end(x);	/* begin, separate or end */
	}
	if (x->kind == K_XLLINK && !x->end_tag && strcmp(t, "ddeLink") == 0)
		x->active = 1;
}

static void
tag_close(struct xml *x)
{
	if (x->kind == K_RELS && x->external && x->typed)
		x->active = 1;
	x->state = X_TEXT;
}

static int
xml_feed(void *arg, const uint8_t *p, size_t n)
{
	struct xml *x = arg;
	size_t i;

	for (i = 0; i < n && !x->active; i++) {
		char ch = (char)p[i];
		int sp = ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';

		switch (x->state) {
		case X_TEXT:
			if (ch == '<') {
				x->state = X_NAME;
				x->nn = 0;
				x->end_tag = 0;
			} else if (x->in_instr) {
				field_char(x, ch);
			}
			break;
		case X_NAME:
			if (x->nn == 0 && ch == '/') {
				x->end_tag = 1;
			} else if (x->nn == 0 && (ch == '!' || ch == '?')) {
				x->state = X_SKIP;
			} else if (sp || ch == '/' || ch == '>') {
				name_done(x);
				x->state = X_ATTRS;
				if (ch == '>')
					tag_close(x);
			} else {
				if (x->nn < KEEP)
					x->name[x->nn] = ch;
				x->nn++;
			}
			break;
		case X_ATTRS:
			if (ch == '>') {
				tag_close(x);
			} else if (!sp && ch != '/') {
				x->state = X_ANAME;
				x->an = 0;
				x->aname[x->an++] = ch;
			}
			break;
		case X_ANAME:
			if (ch == '=') {
				x->state = X_AEQ;
			} else if (ch == '>') {
				tag_close(x);
			} else if (!sp) {
				if (x->an < KEEP)
					x->aname[x->an] = ch;
				x->an++;
			}
			break;
		case X_AEQ:
			if (ch == '"' || ch == '\'') {
				x->quote = ch;
				x->vn = 0;
				x->state = X_AVAL;
			}
			break;
		case X_AVAL:
			if (ch == x->quote) {
				attr_done(x);
				x->state = X_ATTRS;
			} else {
				if (x->vn < KEEP)
					x->aval[x->vn] = ch;
				x->vn++;
			}
			break;
		default:		/* X_SKIP */
			if (ch == '>')
				x->state = X_TEXT;
			break;
		}
	}
	return x->active;
}

struct zwalk {
	const struct pdf_src *src;
	int active;
};

static enum enc_answer
on_zip_entry(void *arg, const struct zip_entry *e)
{
	static struct xml x;
	struct zwalk *w = arg;
	const char *s = e->name;
	size_t n = e->name_long ? ZIP_NAME_KEEP : e->name_len;
	enum enc_answer r;

	if (lower_ends(s, n, "vbaproject.bin") || lower_has(s, n,
	    "macrosheets/") || lower_has(s, n, "activex/") ||
	    lower_has(s, n, "embeddings/")) {
		w->active = 1;
		return ENC_YES;		/* stop: the answer is known */
	}
	memset(&x, 0, sizeof(x));
	if (lower_ends(s, n, ".rels"))
		x.kind = K_RELS;
	else if (ieq_prefix(s, n, "WORD/") && lower_ends(s, n, ".xml"))
		x.kind = K_WORD;
	else if (ieq_prefix(s, n, "XL/EXTERNALLINKS/") &&
	    lower_ends(s, n, ".xml"))
		x.kind = K_XLLINK;
	else
		return ENC_NO;
	if ((r = zip_entry_data(w->src, e, HAC_PART_MAX, xml_feed, &x)) !=
	    ENC_NO)
		return r;
	if (x.kind == K_WORD)
		field_end(&x);
	if (x.active) {
		w->active = 1;
		return ENC_YES;
	}
	return ENC_NO;
}

enum enc_answer
hac_zip(const struct pdf_src *src)
{
	struct zwalk w = { src, 0 };
	enum enc_answer e = zip_entries(src, on_zip_entry, &w);

	if (e == ENC_YES && w.active)
		return ENC_YES;
	return e;
}

static enum enc_answer
on_cfb_entry(void *arg, const uint8_t *d, uint32_t parent)
{
	int *active = arg;

	(void)parent;
	if (d[0x42] == 1 && (cfb_name_is(d, "macros") ||
	    cfb_name_is(d, "_vba_project_cur") || cfb_name_is(d, "vba")))
		*active = 1;
	return ENC_NO;
}

enum enc_answer
hac_cfb(const struct pdf_src *src)
{
	int active = 0;
	enum enc_answer e = cfb_walk(src, on_cfb_entry, &active);

	if (e != ENC_NO)
		return e;
	return active ? ENC_YES : ENC_NO;
}
