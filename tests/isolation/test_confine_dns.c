/* The console's self-confinement with a network profile still resolves
 * names through DNS (an S3 or SFTP endpoint, the hub URL: the Docker hub
 * deployment reaches `hub` through Docker's embedded DNS, docs/docker.md).
 * glibc's stub resolver sends the A and AAAA queries of an AF_UNSPEC
 * lookup together with sendmmsg(2); the console's filter once refused it,
 * and only /etc/hosts names resolved.
 *
 *   test_confine_dns NAME ADDRESS
 *
 * NAME is in no /etc/hosts and resolves to the IPv4 ADDRESS through the
 * resolv.conf in force (run-confine-dns.py gives a private one and a DNS
 * responder on 127.0.0.1). Each lookup is made before confinement (so the
 * test can fail only because of the confinement), then after
 * confine_apply() with network = 1 and the console's system paths. Runs
 * as a non-root account; TAP output. */
#include "config.h"
#include "console/confine.h"
#include "tap.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* 1 when NAME resolves (family AF_INET or AF_UNSPEC) and ADDRESS is among
 * the answers; the reason as a TAP diagnostic otherwise. */
static int
resolves(const char *name, const char *address, int family)
{
	struct addrinfo hints = { .ai_family = family,
	    .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char got[INET_ADDRSTRLEN];
	int e = getaddrinfo(name, "443", &hints, &res), found = 0;

	if (e != 0) {
		tap_diag("getaddrinfo(%s, %s): %s", name,
		    family == AF_INET ? "AF_INET" : "AF_UNSPEC",
		    gai_strerror(e));
		return 0;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		const struct sockaddr_in *sin;

		if (ai->ai_family != AF_INET)
			continue;
		sin = (const struct sockaddr_in *)ai->ai_addr;
		if (inet_ntop(AF_INET, &sin->sin_addr, got, sizeof(got)) !=
		    NULL && strcmp(got, address) == 0)
			found = 1;
	}
	freeaddrinfo(res);
	if (!found)
		tap_diag("%s did not resolve to %s", name, address);
	return found;
}

int
main(int argc, char **argv)
{
	struct confine_spec spec;
	struct landlock_caps caps;
	const char *why = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: test_confine_dns NAME ADDRESS\n");
		return 64;
	}
	tap_plan(5);
	if (landlock_probe(&caps, &why) != 0 || caps.abi < 4)
		tap_bail("Landlock ABI >= 4 unavailable");
	tap_ok(resolves(argv[1], argv[2], AF_INET), "before: the name "
	    "resolves (IPv4 only: one query)");
	tap_ok(resolves(argv[1], argv[2], AF_UNSPEC), "before: the name "
	    "resolves (any family: A and AAAA together)");
	confine_spec_init(&spec);
	spec.network = 1;
	spec.nports = 1;
	spec.ports[0] = 443;
	if (confine_add_system(&spec) != 0)
		tap_bail("spec");
	tap_okwhy(confine_apply(&spec, &caps, &why) == 0, why, "confine_apply");
	tap_ok(resolves(argv[1], argv[2], AF_INET), "after: the name "
	    "resolves (IPv4 only)");
	tap_ok(resolves(argv[1], argv[2], AF_UNSPEC), "after: the name "
	    "resolves (any family: what curl asks)");
	confine_spec_free(&spec);
	return tap_done();
}
