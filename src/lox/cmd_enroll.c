/* lox enroll: the approver's device key, the hub's URL, the consoles'
 * instance keys (docs/hub.md, "Deployment" and "Keys").
 *
 *   lox enroll [--hub URL] [--ca FILE] [--new]
 *   lox enroll --instance NAME=KEY
 *
 * The first makes the device key when there is none (--new: a new one,
 * the old kept as device.key.old) and prints it with the fingerprint the
 * hub's operator and the console's human compare. The second pins a
 * console's instance key: lox shows a ticket only when that key signed
 * it. */
#include "config.h"
#include "lox/hub.h"
#include "lib/str.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int
pin_instance(struct loxhub *h, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[HW_MAX_NAME + 1], fp[HW_FP_LEN + 1];
	uint8_t pk[HW_KEY_LEN];
	size_t i, n;

	n = eq == NULL ? 0 : (size_t)(eq - arg);
	if (n == 0 || n > HW_MAX_NAME || !hw_text_ok(HW_T_INSTANCE, arg, n) ||
	    hw_key_parse_text(eq + 1, pk) != 0) {
		lox_err("--instance NAME=KEY: a name [a-z0-9][a-z0-9_-]{0,31} and "
		    "the key lockfile hub-key printed (ed25519:...)");
		return LOX_EX_USAGE;
	}
	memcpy(name, arg, n);
	name[n] = '\0';
	for (i = 0; i < h->ninst; i++)
		if (strcmp(h->inst[i].name, name) == 0)
			break;
	if (i == LOX_MAX_INSTANCES) {
		lox_err("at most %d instances", LOX_MAX_INSTANCES);
		return LOX_EX_USAGE;
	}
	if (i < h->ninst)
		printf("instance %s: its key replaced\n", name);
	else
		h->ninst++;
	memcpy(h->inst[i].name, name, n + 1);
	memcpy(h->inst[i].pk, pk, HW_KEY_LEN);
	if (loxhub_save(h) != 0)
		return LOX_EX_SOFTWARE;
	hw_fingerprint(pk, fp);
	printf("pinned instance %s, fingerprint %s\n"
	    "Compare it with the one `lockfile hub-key` printed on that "
	    "console.\n", name, fp);
	return 0;
}

int
cmd_enroll(struct lox *l, int argc, char **argv)
{
	struct loxhub h;
	struct hw_keypair kp;
	const char *hub = NULL, *ca = NULL, *inst = NULL, *v;
	char text[HW_KEY_TEXT_LEN + 1], fp[HW_FP_LEN + 1];
	char old[PATH_MAX + 32];
	enum hw_key_err ke;
	int k, r, renew = 0, ret;

	for (k = 1; k < argc; k++) {
		if ((r = lox_opt(argc, argv, &k, "--hub", &v)) != 0) {
			if (r < 0)
				return LOX_EX_USAGE;
			hub = v;
		} else if ((r = lox_opt(argc, argv, &k, "--ca", &v)) != 0) {
			if (r < 0)
				return LOX_EX_USAGE;
			ca = v;
		} else if ((r = lox_opt(argc, argv, &k, "--instance", &v)) != 0) {
			if (r < 0)
				return LOX_EX_USAGE;
			inst = v;
		} else if (strcmp(argv[k], "--new") == 0) {
			renew = 1;
		} else {
			lox_err("refused: lox enroll %s", argv[k]);
			return LOX_EX_USAGE;
		}
	}
	if (inst != NULL && (hub != NULL || ca != NULL || renew)) {
		lox_err("--instance goes alone");
		return LOX_EX_USAGE;
	}
	if (hub != NULL && hc_url_ok(hub) != 0) {
		lox_err("--hub: http(s)://HOST[:PORT] and nothing else (no user, "
		    "path or query)");
		return LOX_EX_USAGE;
	}
	if (ca != NULL && (ca[0] != '/' || access(ca, R_OK) != 0 ||
	    strpbrk(ca, "\"\\") != NULL)) {
		lox_err("--ca: an absolute path to a readable PEM file");
		return LOX_EX_USAGE;
	}
	if (loxhub_load(&h, 0, 0) != 0)
		return LOX_EX_SOFTWARE;
	if (inst != NULL) {
		ret = pin_instance(&h, inst);
		loxhub_free(&h);
		return ret;
	}
	if (hub != NULL && str_fmt(h.url, sizeof(h.url), "%s", hub) != STR_OK)
		return LOX_EX_USAGE;
	if (ca != NULL && str_fmt(h.ca_file, sizeof(h.ca_file), "%s", ca) !=
	    STR_OK)
		return LOX_EX_USAGE;
	if (renew) {
		if (str_fmt(old, sizeof(old), "%s.old", h.key_path) != STR_OK ||
		    access(old, F_OK) == 0) {
			lox_err("%s.old exists: remove it once the old key is "
			    "revoked", h.key_path);
			return LOX_EX_SOFTWARE;
		}
		if ((link(h.key_path, old) != 0 || unlink(h.key_path) != 0) &&
		    errno != ENOENT) {
			lox_err("%s cannot be moved aside", h.key_path);
			return LOX_EX_SOFTWARE;
		}
	}
	ke = hw_key_load(h.key_path, HW_ROLE_DEVICE, &kp);
	if (ke == HW_KEY_MISSING) {
		hw_key_generate(&kp);
		ke = hw_key_save(h.key_path, HW_ROLE_DEVICE, &kp);
		if (ke != HW_KEY_OK) {
			lox_err("%s: %s", h.key_path, hw_key_err_text(ke));
			hw_key_free(&kp);
			return LOX_EX_SOFTWARE;
		}
		printf("made a new device key in %s\n", h.key_path);
	} else if (ke != HW_KEY_OK) {
		lox_err("%s: %s", h.key_path, hw_key_err_text(ke));
		return LOX_EX_SOFTWARE;
	}
	if ((hub != NULL || ca != NULL) && loxhub_save(&h) != 0) {
		hw_key_free(&kp);
		return LOX_EX_SOFTWARE;
	}
	hw_key_text(kp.pk, text);
	hw_fingerprint(kp.pk, fp);
	printf("device-key %s\nfingerprint %s\n"
	    "On the hub:     lockhub enroll device NAME %s --state DIR\n"
	    "On the console: pin it in the policy ([hub.approvers] NAME = "
	    "\"%s\"),\n                then confirm this fingerprint on the "
	    "console's terminal.\n", text, fp, text, text);
	if (h.url[0] != '\0')
		printf("hub %s\n", h.url);
	hw_key_free(&kp);
	loxhub_free(&h);
	(void)l;
	return 0;
}
