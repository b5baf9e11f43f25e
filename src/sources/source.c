/* The table of source kinds. */
#include "sources/source.h"

#include <string.h>

extern const struct source_kind source_local;
#ifdef HAVE_SOURCE_S3
extern const struct source_kind source_s3;
#endif
#ifdef HAVE_SOURCE_SFTP
extern const struct source_kind source_sftp;
#endif

static const struct source_kind *const kinds[] = {
	&source_local,
#ifdef HAVE_SOURCE_S3
	&source_s3,
#endif
#ifdef HAVE_SOURCE_SFTP
	&source_sftp,
#endif
};

const struct source_kind *
source_kind_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i]->name, name) == 0)
			return kinds[i];
	return NULL;
}

const char *
fetch_cause_name(enum fetch_cause c)
{
	static const char *const names[FC__COUNT] = {
		[FC_OK] = "ok", [FC_MISSING] = "missing", [FC_TOO_BIG] = "too-big",
		[FC_DENIED] = "denied", [FC_NETWORK] = "network",
		[FC_TIMEOUT] = "timeout", [FC_HOSTKEY] = "host-key-mismatch",
		[FC_BAD_CREDENTIALS] = "bad-credentials", [FC_TLS] = "tls",
		[FC_NOT_REGULAR] = "not-regular", [FC_IO] = "io",
		[FC_PROTOCOL] = "protocol",
		[FC_CREDENTIAL_SOURCE] = "credential-source",
		[FC_UNAVAILABLE] = "unavailable", [FC_EXPOSED] = "exposed",
	};
	return (unsigned)c < FC__COUNT ? names[c] : "unknown";
}
