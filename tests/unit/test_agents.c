/* Unit tests for src/host/agents.c: agents_build, the one builder of who
 * the agents are (host/agents.h). The console (console.c, from its listener
 * and policy) and doctor (doctor.c, from the group database and the
 * policy it loads) hand it the same inputs and must get the same
 * snapshot; the edge cases pin what the console's socket always did:
 * build-time uids first, then the policy's, then --allowed-uids, each
 * once; uid 0 and empty fields refused in a list, skipped in the policy;
 * at most ISO_MAX_AGENTS (docs/isolation.md, "proc.hidepid-gid"). */
#include "host/agents.h"
#include "console/listener.h"
#include "console/policy.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* As console.c's start() fills it: the listener resolved the group. */
static enum agents_err
console_path(const struct listener *l, const struct policy *pol,
    const char *build, const char *cli, struct iso_agents *a)
{
	struct agents_in in = { .console_uid = l->console_uid,
	    .have_clients_gid = l->have_clients_gid,
	    .clients_gid = l->clients_gid, .build_uids = build,
	    .policy_uids = pol->allowed_uids, .npolicy = pol->nallowed,
	    .cli_uids = cli };

	return agents_build(&in, a);
}

/* As doctor.c's agents_init fills it: getgrnam's answer, and the policy
 * only when it loaded. */
static enum agents_err
doctor_path(uid_t me, const gid_t *group, int have_policy,
    const struct policy *pol, const char *build, const char *cli,
    struct iso_agents *a)
{
	struct agents_in in = { .console_uid = me,
	    .have_clients_gid = group != NULL,
	    .clients_gid = group != NULL ? *group : 0, .build_uids = build,
	    .policy_uids = have_policy ? pol->allowed_uids : NULL,
	    .npolicy = have_policy ? pol->nallowed : 0, .cli_uids = cli };

	return agents_build(&in, a);
}

static void
assert_uids(const struct iso_agents *a, const uid_t *want, size_t n)
{
	size_t i;

	assert_int_equal(a->nallowed, n);
	for (i = 0; i < n; i++)
		assert_int_equal(a->allowed[i], want[i]);
}

static enum agents_err
build(const char *b, const uid_t *pol, size_t npol, const char *cli,
    struct iso_agents *a)
{
	struct agents_in in = { .console_uid = 999, .build_uids = b,
	    .policy_uids = pol, .npolicy = npol, .cli_uids = cli };

	return agents_build(&in, a);
}

/* The same inputs, both paths: byte for byte the same snapshot. */
static void
test_console_and_doctor_agree(void **state)
{
	static struct listener l;
	static struct policy pol;
	struct iso_agents c, d, d2;
	const gid_t clients = 1500;
	const uid_t want[] = { 1001, 1002, 1003, 1004 };

	(void)state;
	memset(&l, 0, sizeof(l));
	l.console_uid = 999;
	l.have_clients_gid = 1;
	l.clients_gid = clients;
	memset(&pol, 0, sizeof(pol));
	pol.allowed_uids[0] = 1002;
	pol.allowed_uids[1] = 1003;
	pol.allowed_uids[2] = 1003;
	pol.nallowed = 3;
	memset(&c, 0xa5, sizeof(c));	/* nothing left from before */
	memset(&d, 0x5a, sizeof(d));
	assert_int_equal(console_path(&l, &pol, "1001,1002", "1004,1001", &c),
	    AGENTS_OK);
	assert_int_equal(doctor_path(999, &clients, 1, &pol, "1001,1002",
	    "1004,1001", &d), AGENTS_OK);
	assert_memory_equal(&c, &d, sizeof(c));
	assert_int_equal(c.console_uid, 999);
	assert_int_equal(c.have_clients_gid, 1);
	assert_int_equal(c.clients_gid, clients);
	assert_int_equal(c.everyone, 0);
	/* build-time, policy, command line; each uid once */
	assert_uids(&c, want, 4);
	/* Built again: the same (nothing depends on what came before). */
	assert_int_equal(doctor_path(999, &clients, 1, &pol, "1001,1002",
	    "1004,1001", &d2), AGENTS_OK);
	assert_memory_equal(&d, &d2, sizeof(d));
}

/* No clients group on this system: the console's listener and doctor's
 * getgrnam both say so, and no gid is carried. */
static void
test_no_group(void **state)
{
	static struct listener l;
	static struct policy pol;
	struct iso_agents c, d;

	(void)state;
	memset(&l, 0, sizeof(l));
	memset(&pol, 0, sizeof(pol));
	l.console_uid = 999;
	assert_int_equal(console_path(&l, &pol, "", NULL, &c), AGENTS_OK);
	assert_int_equal(doctor_path(999, NULL, 1, &pol, "", NULL, &d),
	    AGENTS_OK);
	assert_memory_equal(&c, &d, sizeof(c));
	assert_int_equal(c.have_clients_gid, 0);
	assert_int_equal(c.clients_gid, 0);
	assert_int_equal(c.nallowed, 0);
	/* A gid given without the flag is not carried. */
	{
		struct agents_in in = { .console_uid = 999,
		    .have_clients_gid = 0, .clients_gid = 1500 };
		assert_int_equal(agents_build(&in, &c), AGENTS_OK);
		assert_int_equal(c.clients_gid, 0);
	}
	/* Doctor without a policy (--declare-host, or none loads) is the
	 * console with an empty allowed_uids. */
	pol.allowed_uids[0] = 1234;
	pol.nallowed = 1;
	assert_int_equal(doctor_path(999, NULL, 0, &pol, "", NULL, &d),
	    AGENTS_OK);
	assert_int_equal(d.nallowed, 0);
}

static void
test_duplicates(void **state)
{
	struct iso_agents a;
	const uid_t pol[] = { 1001, 1001, 1002 };
	const uid_t want[] = { 1001, 1002, 1003 };

	(void)state;
	assert_int_equal(build("1001,1001", pol, 3, "1002,1003,1003,1001", &a),
	    AGENTS_OK);
	assert_uids(&a, want, 3);
}

/* uid 0: never an agent. In a list it refuses the list (as the console
 * refused it); in the policy (whose parser refuses it already) it is
 * skipped. */
static void
test_uid_zero(void **state)
{
	struct iso_agents a;
	const uid_t pol[] = { 0, 1001 };
	const uid_t want[] = { 1001 };

	(void)state;
	assert_int_equal(build(NULL, NULL, 0, "0", &a), AGENTS_BAD_CLI);
	assert_int_equal(build(NULL, NULL, 0, "1001,0", &a), AGENTS_BAD_CLI);
	assert_int_equal(build("0", NULL, 0, NULL, &a), AGENTS_BAD_BUILD);
	assert_int_equal(build(NULL, pol, 2, NULL, &a), AGENTS_OK);
	assert_uids(&a, want, 1);
}

/* The console account itself is never an agent (issue 25, 5): an agent
 * with its uid would share the kernel's per-uid task count with the
 * plugins. Listed on the command line or at build time it is refused
 * with that list's code, alone or among others. */
static void
test_console_uid_refused(void **state)
{
	struct iso_agents a;

	(void)state;
	assert_int_equal(build(NULL, NULL, 0, "999,1001", &a), AGENTS_BAD_CLI);
	assert_int_equal(build(NULL, NULL, 0, "999", &a), AGENTS_BAD_CLI);
	assert_int_equal(build("1001,999", NULL, 0, NULL, &a),
	    AGENTS_BAD_BUILD);
	assert_int_equal(build("999", NULL, 0, "1001", &a), AGENTS_BAD_BUILD);
}

/* The policy's list is checked by the policy parser (a policy error at
 * approve and at load); here a console uid in it is skipped, never let
 * in. */
static void
test_console_uid_in_policy_skipped(void **state)
{
	struct iso_agents a;
	const uid_t pol[] = { 999, 1001 };
	const uid_t want[] = { 1001 };

	(void)state;
	assert_int_equal(build(NULL, pol, 2, NULL, &a), AGENTS_OK);
	assert_uids(&a, want, 1);
}

static void
test_list_syntax(void **state)
{
	static const char *const bad[] = { "1,,2", ",1", "1,", ",", "abc",
	    "1 ", " 1", "+1", "-1", "01", "0x10", "2147483647",
	    "99999999999999999999999", NULL };
	struct iso_agents a;
	const uid_t top[] = { 2147483646 };
	char big[1100];
	size_t i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		assert_int_equal(build(NULL, NULL, 0, bad[i], &a),
		    AGENTS_BAD_CLI);
		assert_int_equal(build(bad[i], NULL, 0, NULL, &a),
		    AGENTS_BAD_BUILD);
	}
	/* None and empty are no uids, not an error. */
	assert_int_equal(build(NULL, NULL, 0, NULL, &a), AGENTS_OK);
	assert_int_equal(a.nallowed, 0);
	assert_int_equal(build("", NULL, 0, "", &a), AGENTS_OK);
	assert_int_equal(a.nallowed, 0);
	assert_int_equal(build(NULL, NULL, 0, "2147483646", &a), AGENTS_OK);
	assert_uids(&a, top, 1);
	/* A list of 1024 bytes or more is refused, even if every uid fits. */
	memset(big, 0, sizeof(big));
	for (i = 0; i + 2 < 1024; i += 2)
		memcpy(big + i, "1,", 2);
	big[i] = '1';		/* 1023 bytes: one uid, said many times */
	assert_int_equal(strlen(big), 1023);
	assert_int_equal(build(NULL, NULL, 0, big, &a), AGENTS_OK);
	assert_int_equal(a.nallowed, 1);
	memcpy(big + i, "1,1", 3);
	assert_int_equal(strlen(big), 1025);
	assert_int_equal(build(NULL, NULL, 0, big, &a), AGENTS_BAD_CLI);
	/* The build-time list is refused first. */
	assert_int_equal(build("x", NULL, 0, "y", &a), AGENTS_BAD_BUILD);
}

/* At most ISO_MAX_AGENTS: a list past it is refused, the policy's uids
 * past it skipped. */
static void
test_full(void **state)
{
	char list[ISO_MAX_AGENTS * 6 + 8], *p = list;
	const uid_t pol[] = { 5000, 1000 };
	struct iso_agents a;
	size_t i;

	(void)state;
	for (i = 0; i < ISO_MAX_AGENTS; i++)
		p += snprintf(p, sizeof(list) - (size_t)(p - list), "%s%zu",
		    i ? "," : "", 1000 + i);
	assert_true(strlen(list) < 1024);
	assert_int_equal(build(list, pol, 2, "1005", &a), AGENTS_OK);
	assert_int_equal(a.nallowed, ISO_MAX_AGENTS);
	assert_int_equal(a.allowed[ISO_MAX_AGENTS - 1],
	    1000 + ISO_MAX_AGENTS - 1);
	assert_int_equal(build(NULL, NULL, 0, list, &a), AGENTS_OK);
	assert_int_equal(build(list, NULL, 0, "5000", &a), AGENTS_BAD_CLI);
	memcpy(list + strlen(list), ",5000", sizeof(",5000"));
	assert_int_equal(build(list, NULL, 0, NULL, &a), AGENTS_BAD_BUILD);
	assert_int_equal(build(NULL, NULL, 0, list, &a), AGENTS_BAD_CLI);
}

/* The store's loosening prompt: no policy, every other account. */
static void
test_everyone(void **state)
{
	const struct agents_in in = { .console_uid = 999, .everyone = 1 };
	struct iso_agents a;

	(void)state;
	assert_int_equal(agents_build(&in, &a), AGENTS_OK);
	assert_int_equal(a.everyone, 1);
	assert_int_equal(a.console_uid, 999);
	assert_int_equal(a.nallowed, 0);
	assert_int_equal(a.have_clients_gid, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_and_doctor_agree),
		cmocka_unit_test(test_no_group),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_uid_zero),
		cmocka_unit_test(test_console_uid_refused),
		cmocka_unit_test(test_console_uid_in_policy_skipped),
		cmocka_unit_test(test_list_syntax),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_everyone),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("agents", tests, NULL, NULL);
}
