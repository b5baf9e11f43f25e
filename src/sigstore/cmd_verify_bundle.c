/* `lockfile verify-bundle`: verify one Sigstore bundle offline, following
 * the sigstore-conformance CLI protocol (exit 0 verified, non-zero refused,
 * one line on stderr saying why). A diagnostic; the store calls the
 * library directly. The reason printed is the static text of the error
 * code, never bytes from the bundle. */
#include "config.h"
#include "sigstore/cmd.h"
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/log.h"
#include "lib/paths.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_ROOT LOCKFILE_SYSCONFDIR "/" LF_SYS_TRUSTED_ROOT

static const char usage_text[] =
"usage: lockfile verify-bundle --bundle F\n"
"           (--certificate-identity ID --certificate-oidc-issuer URL\n"
"            [--source-repository URI] [--source-ref REF]\n"
"            | --release-repo OWNER/REPO --release-tag TAG\n"
"            | --key PUB.pem)\n"
"           [--source-repository-id N] [--source-owner-id N]\n"
"           [--trusted-root F] FILE | sha256:HEX\n"
"\n"
"Verifies the Sigstore bundle F over FILE (or the artifact whose SHA-256\n"
"is HEX) offline, with the trusted root F (default " DEFAULT_ROOT ",\n"
"which must be root-owned).\n"
"  --certificate-identity ID     exact SAN of the signing certificate\n"
"  --certificate-oidc-issuer URL exact OIDC issuer (Fulcio OID .1.8)\n"
"  --source-repository URI       exact source repository (OID .1.12)\n"
"  --source-ref REF              exact source ref (OID .1.14)\n"
"  --source-repository-id N      exact source repository id (OID .1.15)\n"
"  --source-owner-id N           exact repository owner id (OID .1.17)\n"
"  --release-repo, --release-tag the release.yml workflow of OWNER/REPO run\n"
"                                on tag TAG (SAN, issuer, repository, ref)\n"
"  --key PUB.pem                 a managed key instead of an identity\n"
"Exit status: 0 verified, 1 refused, 64 usage, 70 internal error.\n";

static int
artifact_digest(const char *arg, uint8_t out[32])
{
	int fd;

	if (strncmp(arg, "sha256:", 7) == 0)
		return hex_decode(arg + 7, out, 32) == 0 ? 0 : -1;
	fd = open(arg, OPEN_RO_SAFE);
	if (fd < 0) {
		logit_errno("artifact");
		return -1;
	}
	if (check_fd_owner_mode(fd, (uid_t)-1, 0) != 0 ||
	    sha256_fd(fd, out) != 0) {
		logit_errno("artifact");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int
load_key(const char *path, struct sig_key *key)
{
	uint8_t *pem;
	size_t len;
	int ret;

	ret = sig_read_file(path, 4 * SIG_MAX_KEY, 0, &pem, &len);
	if (ret != SIGSTORE_OK)
		return ret;
	ret = sig_key_from_pem(pem, len, key);
	free(pem);
	return ret;
}

static int
refuse(int err)
{
	logit("refused: %s: %s", sigstore_errname(err), sigstore_strerror(err));
	return err == SIGSTORE_E_INTERNAL ? 70 : 1;
}

int
cmd_verify_bundle(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bundle", required_argument, NULL, 'b' },
		{ "certificate-identity", required_argument, NULL, 'i' },
		{ "certificate-oidc-issuer", required_argument, NULL, 'o' },
		{ "source-repository", required_argument, NULL, 'r' },
		{ "source-ref", required_argument, NULL, 'f' },
		{ "source-repository-id", required_argument, NULL, 'I' },
		{ "source-owner-id", required_argument, NULL, 'W' },
		{ "release-repo", required_argument, NULL, 'R' },
		{ "release-tag", required_argument, NULL, 'T' },
		{ "key", required_argument, NULL, 'k' },
		{ "trusted-root", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bundle_path = NULL, *root_path = NULL, *key_path = NULL;
	const char *rel_repo = NULL, *rel_tag = NULL;
	const char *repo_id = NULL, *owner_id = NULL;
	struct sigstore_policy policy;
	struct sigstore_policy_buf pbuf;
	struct sigstore_root *root = NULL;
	struct sigstore_bundle *b = NULL;
	struct sig_key key;
	uint8_t digest[32], *data = NULL;
	size_t len;
	int c, ret, rc = 70;

	memset(&policy, 0, sizeof(policy));
	memset(&key, 0, sizeof(key));
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			bundle_path = optarg;
			break;
		case 'i':
			policy.san = optarg;
			break;
		case 'o':
			policy.issuer = optarg;
			break;
		case 'r':
			policy.source_repo = optarg;
			break;
		case 'f':
			policy.source_ref = optarg;
			break;
		case 'I':
			repo_id = optarg;
			break;
		case 'W':
			owner_id = optarg;
			break;
		case 'R':
			rel_repo = optarg;
			break;
		case 'T':
			rel_tag = optarg;
			break;
		case 'k':
			key_path = optarg;
			break;
		case 't':
			root_path = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1 || bundle_path == NULL)
		goto usage;
	if ((rel_repo != NULL) != (rel_tag != NULL))
		goto usage;
	if (rel_repo != NULL) {
		if (policy.san != NULL || policy.issuer != NULL ||
		    policy.source_repo != NULL || policy.source_ref != NULL ||
		    key_path != NULL)
			goto usage;
		if (sigstore_policy_github_release(&policy, &pbuf, rel_repo,
		    rel_tag) != SIGSTORE_OK) {
			logit("--release-repo/--release-tag: not plain names");
			return 64;
		}
	} else if (key_path != NULL) {
		if (policy.san != NULL || policy.issuer != NULL ||
		    policy.source_repo != NULL || policy.source_ref != NULL)
			goto usage;
		/* An unusable key refuses like any other bad input. */
		if (load_key(key_path, &key) != SIGSTORE_OK)
			return refuse(SIGSTORE_E_POLICY);
		policy.key_spki = key.spki;
		policy.key_spki_len = key.spki_len;
	} else if (policy.san == NULL || policy.issuer == NULL)
		goto usage;
	if (key_path != NULL && (repo_id != NULL || owner_id != NULL))
		goto usage;
	policy.source_repo_id = repo_id;
	policy.source_owner_id = owner_id;
	if (artifact_digest(argv[optind], digest) != 0) {
		logit("artifact: neither a readable file nor sha256:HEX");
		rc = 64;
		goto out;
	}
	ret = sigstore_root_load(root_path != NULL ? root_path : DEFAULT_ROOT,
	    root_path == NULL, &root);
	if (ret != SIGSTORE_OK) {
		rc = refuse(ret);
		goto out;
	}
	ret = sig_read_file(bundle_path, SIGSTORE_MAX_BUNDLE, 0, &data, &len);
	if (ret == SIGSTORE_OK)
		ret = sigstore_bundle_parse(data, len, &b);
	if (ret == SIGSTORE_OK)
		ret = sigstore_verify(root, b, digest, &policy, NULL);
	if (ret != SIGSTORE_OK) {
		rc = refuse(ret);
		goto out;
	}
	printf("verified\n");
	rc = fflush(stdout) == 0 ? 0 : 70;
out:
	free(data);
	sigstore_bundle_free(b);
	sigstore_root_free(root);
	sig_key_free(&key);
	return rc;
usage:
	fputs(usage_text, stderr);
	return 64;
}
