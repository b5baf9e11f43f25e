/* testsign: a throw-away Sigstore for tests.
 *
 *   testsign init DIR
 *	writes DIR/trusted_root.json (a Fulcio-like root + intermediate CA, a
 *	Rekor-like log key, a CT log key, a TSA) and the private keys, plus a
 *	"rogue" CA with the same names and other keys that is not in the root.
 *   testsign sign DIR --identity URI --issuer URL [--repo URI] [--ref REF]
 *	    [bad-bundle options] ARTIFACT > bundle.json
 *	a v0.3 bundle: leaf certificate with an embedded SCT, a Rekor v1
 *	hashedrekord entry with a valid SET, inclusion proof and checkpoint.
 *
 * Options for deliberately bad bundles: --expired, --rogue-ca, --no-sct,
 * --bad-sct, --no-set, --bad-set, --no-proof, --bad-proof, --bad-checkpoint,
 * --bad-signature, --server-auth (no code-signing EKU), --issuer-v1 URL
 * (a legacy .1.1 issuer that differs), --issuer-v1-only, --email (the SAN is
 * an e-mail address), --tsa (add an RFC 3161 timestamp), --bundle-version
 * 0.1|0.2|0.3, --ber-leaf length|boolean (a leaf whose TBS is BER, not DER:
 * a length in a longer form than needed, or a TRUE spelled 01; signed as
 * sent, so it verifies but for its encoding), --pem-junk before|after (text
 * around the PEM block of the logged certificate). --repo-id ID and
 * --owner-id ID add the Fulcio source repository and owner identifiers
 * (.1.15, .1.17). Test-only: its keys sit in DIR in the clear. */
#include "testsign.h"
#include "sigstore/internal.h"
#include "lib/crypto.h"
#include "lib/fd.h"
#include "lib/jsonx.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REKOR_NAME "rekor.testsign.invalid"
#define DAY (24 * 3600)

static char *
iso8601(time_t t)
{
	char buf[32];
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		fatal("time");
	return sig_strndup(buf, strlen(buf));
}

static json_t *
b64_json(const uint8_t *p, size_t n)
{
	char *s = sig_b64_encode(p, n);
	json_t *v = json_string(s);

	free(s);
	return v;
}

static json_t *
log_json(const char *url, EVP_PKEY *k, time_t start)
{
	uint8_t *spki, id[32];
	size_t len;
	char *st = iso8601(start);
	json_t *o;

	ts_spki(k, &spki, &len);
	sha256_mem(spki, len, id);
	o = json_pack("{s:s, s:s, s:{s:o, s:s, s:{s:s}}, s:{s:o}}",
	    "baseUrl", url, "hashAlgorithm", "SHA2_256",
	    "publicKey", "rawBytes", b64_json(spki, len),
	    "keyDetails", "PKIX_ECDSA_P256_SHA_256", "validFor", "start", st,
	    "logId", "keyId", b64_json(id, 32));
	free(spki);
	free(st);
	if (o == NULL)
		fatal("json_pack");
	return o;
}

static json_t *
authority_json(const char *cn, const char *uri, X509 **chain, size_t n,
    time_t start)
{
	json_t *certs = json_array(), *o;
	char *st = iso8601(start), *b64;
	size_t i;

	for (i = 0; i < n; i++) {
		b64 = ts_cert_der_b64(chain[i]);
		json_array_append_new(certs, json_pack("{s:s}", "rawBytes", b64));
		free(b64);
	}
	o = json_pack("{s:{s:s, s:s}, s:s, s:{s:o}, s:{s:s}}",
	    "subject", "organization", "lockfile-test", "commonName", cn,
	    "uri", uri, "certChain", "certificates", certs,
	    "validFor", "start", st);
	free(st);
	if (o == NULL)
		fatal("json_pack");
	return o;
}

static int
cmd_init(const char *dir)
{
	time_t now = time(NULL), nb = now - DAY, na = now + 3650 * DAY;
	EVP_PKEY *rk = ts_genkey(), *ik = ts_genkey(), *rek = ts_genkey();
	EVP_PKEY *ctk = ts_genkey(), *trk = ts_genkey(), *tk = ts_genkey();
	EVP_PKEY *grk = ts_genkey(), *gik = ts_genkey();
	X509 *root, *inter, *troot, *tsa, *groot, *ginter, *chain[2];
	json_t *doc;
	char path[4096];
	FILE *f;
	int fd;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		fatal_errno("%s", dir);
	root = ts_make_ca("testsign-root", rk, NULL, NULL, -1, 0, nb, na);
	inter = ts_make_ca("testsign-intermediate", ik, root, rk, 0,
	    NID_code_sign, nb, na);
	troot = ts_make_ca("testsign-tsa-root", trk, NULL, NULL, -1, 0, nb, na);
	tsa = ts_make_tsa_leaf("testsign-tsa", tk, troot, trk, nb, na);
	/* The rogue CA copies the names: only the keys tell them apart. */
	groot = ts_make_ca("testsign-root", grk, NULL, NULL, -1, 0, nb, na);
	ginter = ts_make_ca("testsign-intermediate", gik, groot, grk, 0,
	    NID_code_sign, nb, na);
	ts_write_key(dir, "inter.key", ik);
	ts_write_cert(dir, "inter.pem", inter);
	ts_write_cert(dir, "root.pem", root);
	ts_write_key(dir, "rekor.key", rek);
	ts_write_key(dir, "ct.key", ctk);
	ts_write_key(dir, "tsa.key", tk);
	ts_write_cert(dir, "tsa.pem", tsa);
	ts_write_cert(dir, "tsa-root.pem", troot);
	ts_write_key(dir, "rogue-inter.key", gik);
	ts_write_cert(dir, "rogue-inter.pem", ginter);
	ts_write_cert(dir, "rogue-root.pem", groot);
	doc = json_pack("{s:s, s:[o], s:[o], s:[], s:[]}", "mediaType",
	    "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
	    "tlogs", log_json("https://" REKOR_NAME, rek, nb),
	    "ctlogs", log_json("https://ct.testsign.invalid", ctk, nb),
	    "certificateAuthorities", "timestampAuthorities");
	if (doc == NULL)
		fatal("json_pack");
	chain[0] = inter;
	chain[1] = root;
	json_array_append_new(json_object_get(doc, "certificateAuthorities"),
	    authority_json("testsign-root", "https://fulcio.testsign.invalid",
	    chain, 2, nb));
	chain[0] = tsa;
	chain[1] = troot;
	json_array_append_new(json_object_get(doc, "timestampAuthorities"),
	    authority_json("testsign-tsa", "https://tsa.testsign.invalid",
	    chain, 2, nb));
	snprintf(path, sizeof(path), "%s/trusted_root.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
		fatal_errno("%s", path);
	if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_SORT_KEYS) != 0 ||
	    fputc('\n', f) == EOF || fclose(f) != 0)
		fatal_errno("%s", path);
	json_decref(doc);
	X509_free(root);
	X509_free(inter);
	X509_free(troot);
	X509_free(tsa);
	X509_free(groot);
	X509_free(ginter);
	EVP_PKEY_free(rk);
	EVP_PKEY_free(ik);
	EVP_PKEY_free(rek);
	EVP_PKEY_free(ctk);
	EVP_PKEY_free(trk);
	EVP_PKEY_free(tk);
	EVP_PKEY_free(grk);
	EVP_PKEY_free(gik);
	return 0;
}

struct sign_opts {
	struct ts_identity id;
	int expired, rogue_ca, no_sct, bad_sct, no_set, bad_set, no_proof;
	int bad_proof, bad_checkpoint, bad_signature, tsa;
	int version;
	int ber_leaf;		/* 0, 1 a long length form, 2 a TRUE as 01 */
	int pem_junk;		/* 0, 1 text before the block, 2 after it */
};

static json_t *
hashedrekord_body(const uint8_t digest[32], const uint8_t *sig,
    size_t siglen, X509 *leaf, int pem_junk)
{
	char hex[SHA256_HEX_LEN + 1], *pem = ts_cert_pem(leaf);
	json_t *o;

	if (pem_junk) {
		char *j = sig_malloc(strlen(pem) + 32);
		snprintf(j, strlen(pem) + 32, "%s%s%s", pem_junk == 1 ?
		    "junk before\n" : "", pem, pem_junk == 2 ? "junk after\n" :
		    "");
		free(pem);
		pem = j;
	}
	hex_encode(digest, 32, hex);
	o = json_pack("{s:s, s:s, s:{s:{s:{s:s, s:s}}, s:{s:o, s:{s:o}}}}",
	    "apiVersion", "0.0.1", "kind", "hashedrekord", "spec",
	    "data", "hash", "algorithm", "sha256", "value", hex,
	    "signature", "content", b64_json(sig, siglen),
	    "publicKey", "content", b64_json((uint8_t *)pem, strlen(pem)));
	free(pem);
	if (o == NULL)
		fatal("json_pack");
	return o;
}

static void
flip(uint8_t *p)
{
	p[0] ^= 0x01;
}

/* A small log: our entry at a random index of a tree of random leaves,
 * its audit path, and a checkpoint signed by the log key. */
static json_t *
tlog_entry(const struct sign_opts *o, const char *body, EVP_PKEY *rekor,
    time_t it)
{
	uint8_t leaves[16][32], path[8][32], root[32], *spki, id[32];
	uint8_t *sig, hint[4], *line;
	struct sig_key k;
	size_t n, m, i, plen, spkilen, siglen;
	char *b64 = sig_b64_encode((const uint8_t *)body, strlen(body));
	char *set, note[512], *cp, idx[24];
	json_t *hashes = json_array(), *e;
	EVP_PKEY *other;

	random_bytes(leaves, sizeof(leaves));
	n = 2 + leaves[0][0] % 14;
	m = leaves[0][1] % n;
	sig_merkle_leaf((const uint8_t *)body, strlen(body), leaves[m]);
	ts_merkle_root((const uint8_t (*)[32])leaves, n, root);
	plen = ts_merkle_path((const uint8_t (*)[32])leaves, n, m, path);
	if (o->bad_proof)
		flip(path[0]);
	for (i = 0; i < plen; i++)
		json_array_append_new(hashes, b64_json(path[i], 32));
	ts_spki(rekor, &spki, &spkilen);
	sha256_mem(spki, spkilen, id);
	/* Signed note: the text, a blank line, "— name b64(hint||sig)". */
	snprintf(note, sizeof(note), "%s - 4242\n%zu\n", REKOR_NAME, n);
	cp = sig_b64_encode(root, 32);
	snprintf(note + strlen(note), sizeof(note) - strlen(note), "%s\n", cp);
	free(cp);
	other = o->bad_checkpoint ? ts_genkey() : NULL;
	ts_sign(other != NULL ? other : rekor, (uint8_t *)note, strlen(note),
	    &sig, &siglen);
	if (sig_key_from_pkey(rekor, &k) != SIGSTORE_OK ||
	    sig_note_key_hint(&k, REKOR_NAME, hint) != SIGSTORE_OK)
		fatal("key hint");
	sig_key_free(&k);
	line = sig_malloc(4 + siglen);
	memcpy(line, hint, 4);
	memcpy(line + 4, sig, siglen);
	free(sig);
	cp = sig_b64_encode(line, 4 + siglen);
	free(line);
	snprintf(note + strlen(note), sizeof(note) - strlen(note),
	    "\n\xe2\x80\x94 %s %s\n", REKOR_NAME, cp);
	free(cp);
	snprintf(idx, sizeof(idx), "%zu", 1000 + m);
	e = json_pack("{s:s, s:{s:o}, s:{s:s, s:s}, s:s}",
	    "logIndex", idx, "logId", "keyId", b64_json(id, 32),
	    "kindVersion", "kind", "hashedrekord", "version", "0.0.1",
	    "canonicalizedBody", b64);
	if (e == NULL)
		fatal("json_pack");
	if (!o->no_proof) {
		char mi[24], ni[24];
		snprintf(mi, sizeof(mi), "%zu", m);
		snprintf(ni, sizeof(ni), "%zu", n);
		json_object_set_new(e, "inclusionProof", json_pack(
		    "{s:s, s:o, s:s, s:o, s:{s:s}}", "logIndex", mi,
		    "rootHash", b64_json(root, 32), "treeSize", ni,
		    "hashes", hashes, "checkpoint", "envelope", note));
	} else
		json_decref(hashes);
	if (!o->no_set) {
		char t[24];
		snprintf(t, sizeof(t), "%lld", (long long)it);
		json_object_set_new(e, "integratedTime", json_string(t));
		set = sig_set_payload(b64, it, id, 32, (int64_t)(1000 + m));
		ts_sign(rekor, (uint8_t *)set, strlen(set), &sig, &siglen);
		if (o->bad_set)
			flip(sig + siglen - 1);
		json_object_set_new(e, "inclusionPromise", json_pack("{s:o}",
		    "signedEntryTimestamp", b64_json(sig, siglen)));
		free(sig);
		free(set);
	}
	EVP_PKEY_free(other);
	free(spki);
	free(b64);
	return e;
}

static int
cmd_sign(const char *dir, const struct sign_opts *o, const char *artifact)
{
	static const char *const mts[] = { NULL,
	    "application/vnd.dev.sigstore.bundle+json;version=0.1",
	    "application/vnd.dev.sigstore.bundle+json;version=0.2",
	    "application/vnd.dev.sigstore.bundle.v0.3+json" };
	time_t now = time(NULL), nb = now - 60, na = now + 540;
	EVP_PKEY *issuer_key, *ct_key, *rekor, *leaf_key = ts_genkey();
	X509 *issuer, *leaf;
	uint8_t digest[32], *sig, *spki, log_id[32];
	size_t siglen, spkilen;
	json_t *body, *bundle, *vm;
	char *body_s, *leaf_b64;
	int fd;

	fd = open(artifact, OPEN_RO_SAFE);
	if (fd < 0 || sha256_fd(fd, digest) != 0)
		fatal_errno("%s", artifact);
	close(fd);
	if (o->expired) {	/* valid an hour ago for ten minutes */
		nb = now - 3600;
		na = now - 3000;
	}
	issuer = ts_read_cert(dir, o->rogue_ca ? "rogue-inter.pem" :
	    "inter.pem");
	issuer_key = ts_read_key(dir, o->rogue_ca ? "rogue-inter.key" :
	    "inter.key");
	rekor = ts_read_key(dir, "rekor.key");
	ct_key = o->bad_sct ? ts_genkey() : ts_read_key(dir, "ct.key");
	leaf = ts_make_leaf(&o->id, leaf_key, issuer, issuer_key, nb, na);
	if (o->ber_leaf == 2) {
		/* OpenSSL re-encodes a TRUE as the byte it read: the SCT and
		 * the signature below cover the 01 */
		X509 *ber = ts_ber_variant(leaf, issuer_key, 2);
		X509_free(leaf);
		leaf = ber;
	}
	if (!o->no_sct) {
		EVP_PKEY *real_ct = ts_read_key(dir, "ct.key");
		ts_spki(real_ct, &spki, &spkilen);
		sha256_mem(spki, spkilen, log_id);
		free(spki);
		EVP_PKEY_free(real_ct);
		ts_embed_sct(leaf, issuer, issuer_key, ct_key, log_id,
		    (uint64_t)now * 1000);
	}
	if (o->ber_leaf == 1) {
		/* a length form is not kept by a re-encoding: last */
		X509 *ber = ts_ber_variant(leaf, issuer_key, 1);
		X509_free(leaf);
		leaf = ber;
	}
	if (o->bad_signature) {
		uint8_t other[32];
		sha256_mem("not the artifact", 16, other);
		ts_sign_digest(leaf_key, other, &sig, &siglen);
	} else
		ts_sign_digest(leaf_key, digest, &sig, &siglen);
	body = hashedrekord_body(digest, sig, siglen, leaf, o->pem_junk);
	body_s = jsonx_dump_line(body);
	json_decref(body);
	leaf_b64 = ts_cert_der_b64(leaf);
	if (o->version == 3)
		vm = json_pack("{s:{s:s}, s:[o]}", "certificate", "rawBytes",
		    leaf_b64, "tlogEntries", tlog_entry(o, body_s, rekor, now));
	else
		vm = json_pack("{s:{s:[{s:s}]}, s:[o]}", "x509CertificateChain",
		    "certificates", "rawBytes", leaf_b64, "tlogEntries",
		    tlog_entry(o, body_s, rekor, now));
	if (vm == NULL)
		fatal("json_pack");
	if (o->tsa) {
		EVP_PKEY *tk = ts_read_key(dir, "tsa.key");
		X509 *tc = ts_read_cert(dir, "tsa.pem");
		X509 *tr = ts_read_cert(dir, "tsa-root.pem");
		uint8_t *tsr;
		size_t tsrlen;
		ts_timestamp(tk, tc, tr, sig, siglen, &tsr, &tsrlen);
		json_object_set_new(vm, "timestampVerificationData", json_pack(
		    "{s:[{s:o}]}", "rfc3161Timestamps", "signedTimestamp",
		    b64_json(tsr, tsrlen)));
		free(tsr);
		EVP_PKEY_free(tk);
		X509_free(tc);
		X509_free(tr);
	}
	bundle = json_pack("{s:s, s:o, s:{s:{s:s, s:o}, s:o}}",
	    "mediaType", mts[o->version], "verificationMaterial", vm,
	    "messageSignature", "messageDigest", "algorithm", "SHA2_256",
	    "digest", b64_json(digest, 32), "signature", b64_json(sig, siglen));
	if (bundle == NULL || json_dumpf(bundle, stdout, JSON_COMPACT |
	    JSON_SORT_KEYS) != 0 || fputc('\n', stdout) == EOF ||
	    fflush(stdout) != 0)
		fatal("writing the bundle");
	json_decref(bundle);
	free(leaf_b64);
	free(body_s);
	free(sig);
	X509_free(leaf);
	X509_free(issuer);
	EVP_PKEY_free(issuer_key);
	EVP_PKEY_free(ct_key);
	EVP_PKEY_free(rekor);
	EVP_PKEY_free(leaf_key);
	return 0;
}

static const char usage_text[] =
"usage: testsign init DIR\n"
"       testsign sign DIR --identity URI --issuer URL [--repo URI]\n"
"           [--ref REF] [--expired] [--rogue-ca] [--no-sct] [--bad-sct]\n"
"           [--no-set] [--bad-set] [--no-proof] [--bad-proof]\n"
"           [--bad-checkpoint] [--bad-signature] [--server-auth]\n"
"           [--issuer-v1 URL] [--issuer-v1-only] [--email] [--tsa]\n"
"           [--bundle-version 0.1|0.2|0.3] [--ber-leaf length|boolean]\n"
"           [--pem-junk before|after] [--repo-id ID] [--owner-id ID]\n"
"           ARTIFACT > bundle.json\n";

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "identity", required_argument, NULL, 'i' },
		{ "issuer", required_argument, NULL, 'o' },
		{ "repo", required_argument, NULL, 'r' },
		{ "ref", required_argument, NULL, 'f' },
		{ "issuer-v1", required_argument, NULL, '1' },
		{ "issuer-v1-only", no_argument, NULL, 'O' },
		{ "email", no_argument, NULL, 'E' },
		{ "server-auth", no_argument, NULL, 'S' },
		{ "bundle-version", required_argument, NULL, 'V' },
		{ "expired", no_argument, NULL, 'x' },
		{ "rogue-ca", no_argument, NULL, 'g' },
		{ "no-sct", no_argument, NULL, 'n' },
		{ "bad-sct", no_argument, NULL, 'N' },
		{ "no-set", no_argument, NULL, 's' },
		{ "bad-set", no_argument, NULL, 'B' },
		{ "no-proof", no_argument, NULL, 'p' },
		{ "bad-proof", no_argument, NULL, 'P' },
		{ "bad-checkpoint", no_argument, NULL, 'C' },
		{ "bad-signature", no_argument, NULL, 'G' },
		{ "tsa", no_argument, NULL, 't' },
		{ "ber-leaf", required_argument, NULL, 'b' },
		{ "pem-junk", required_argument, NULL, 'j' },
		{ "repo-id", required_argument, NULL, 'R' },
		{ "owner-id", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct sign_opts o;
	int c;

	log_init("testsign");
	if (argc == 3 && strcmp(argv[1], "init") == 0)
		return cmd_init(argv[2]);
	if (argc < 4 || strcmp(argv[1], "sign") != 0)
		goto usage;
	memset(&o, 0, sizeof(o));
	o.id.eku_nid = NID_code_sign;
	o.version = 3;
	optind = 3;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.id.san = optarg;
			break;
		case 'o':
			o.id.issuer = optarg;
			break;
		case 'r':
			o.id.repo = optarg;
			break;
		case 'f':
			o.id.ref = optarg;
			break;
		case '1':
			o.id.issuer_v1 = optarg;
			break;
		case 'O':
			o.id.no_issuer_v2 = 1;
			break;
		case 'E':
			o.id.san_email = 1;
			break;
		case 'S':
			o.id.eku_nid = NID_server_auth;
			break;
		case 'V':
			if (strcmp(optarg, "0.1") == 0)
				o.version = 1;
			else if (strcmp(optarg, "0.2") == 0)
				o.version = 2;
			else if (strcmp(optarg, "0.3") == 0)
				o.version = 3;
			else
				goto usage;
			break;
		case 'x':
			o.expired = 1;
			break;
		case 'g':
			o.rogue_ca = 1;
			break;
		case 'n':
			o.no_sct = 1;
			break;
		case 'N':
			o.bad_sct = 1;
			break;
		case 's':
			o.no_set = 1;
			break;
		case 'B':
			o.bad_set = 1;
			break;
		case 'p':
			o.no_proof = 1;
			break;
		case 'P':
			o.bad_proof = 1;
			break;
		case 'C':
			o.bad_checkpoint = 1;
			break;
		case 'G':
			o.bad_signature = 1;
			break;
		case 't':
			o.tsa = 1;
			break;
		case 'b':
			if (strcmp(optarg, "length") == 0)
				o.ber_leaf = 1;
			else if (strcmp(optarg, "boolean") == 0)
				o.ber_leaf = 2;
			else
				goto usage;
			break;
		case 'j':
			if (strcmp(optarg, "before") == 0)
				o.pem_junk = 1;
			else if (strcmp(optarg, "after") == 0)
				o.pem_junk = 2;
			else
				goto usage;
			break;
		case 'R':
			o.id.repo_id = optarg;
			break;
		case 'W':
			o.id.owner_id = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1 || o.id.san == NULL || o.id.issuer == NULL)
		goto usage;
	return cmd_sign(argv[2], &o, argv[optind]);
usage:
	fputs(usage_text, stderr);
	return 64;
}
