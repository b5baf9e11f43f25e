/* The approval page's files, compiled into lockhub (src/hub/page/,
 * bundle.py; docs/hub.md, "Approving from a phone"). */
#ifndef LOCKFILE_HUB_PAGE_H
#define LOCKFILE_HUB_PAGE_H

#include <stddef.h>

struct page_file {
	const char *path;		/* as served: "/", "/page.js", ... */
	const char *type;		/* Content-Type */
	const unsigned char *data;
	size_t len;
};

extern const struct page_file page_files[];	/* ends with a NULL path */
extern const char page_sha256[];		/* the bundle's, hex */

#endif
