/* The console's self-confinement with a network profile: TCP connect only
 * to the profiles' ports. Two listeners on loopback; before confinement a
 * connect to each works (so the test can fail for the right reason); after
 * confine_apply() with one of the two ports in the spec, the allowed one
 * still connects and the other is refused by Landlock (EACCES), and binding
 * a port stays refused. Runs as any non-root account; TAP output. */
#include "config.h"
#include "console/confine.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int
listener(unsigned *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
		return -1;
	*port = ntohs(sa.sin_port);
	return fd;
}

/* 0 when a connect to port works, else its errno. */
static int
connect_errno(unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		e = errno;
	close(fd);
	return e;
}

static int
bind_errno(void)
{
	unsigned p;
	int fd = listener(&p), e = fd < 0 ? errno : 0;

	if (fd >= 0)
		close(fd);
	return e;
}

int
main(void)
{
	struct confine_spec spec;
	struct landlock_caps caps;
	const char *why = NULL;
	unsigned allowed, other;
	int l1 = listener(&allowed), l2 = listener(&other);

	tap_plan(6);
	if (l1 < 0 || l2 < 0 || landlock_probe(&caps, &why) != 0 ||
	    caps.abi < 4)
		tap_bail("listeners or Landlock ABI >= 4 unavailable");
	tap_ok(connect_errno(allowed) == 0, "before: connect to the profile's "
	    "port");
	tap_ok(connect_errno(other) == 0, "before: connect to another port");
	confine_spec_init(&spec);
	spec.network = 1;
	spec.nports = 1;
	spec.ports[0] = allowed;
	/* /proc as the console has it (LeakSanitizer reads it at exit) */
	if (confine_add(&spec, "/proc", CONFINE_READ, 0) != 0)
		tap_bail("spec");
	tap_ok(confine_apply(&spec, &caps, &why) == 0, "confine_apply");
	tap_ok(connect_errno(allowed) == 0, "after: the profile's port "
	    "connects");
	tap_ok(connect_errno(other) == EACCES, "after: another port is "
	    "refused");
	tap_ok(bind_errno() != 0, "after: binding a TCP port is refused");
	confine_spec_free(&spec);
	return tap_done();
}
