/* Request params from agent arguments (see params.h). */
#include "client/params.h"
#include "protocol/shape.h"
#include "lib/crypto.h"

#include <string.h>

static json_t *
fail(const char **why, const char *text)
{
	*why = text;
	return NULL;
}

/* A JSON string of valid UTF-8, 1..max bytes, without NUL. */
static json_t *
utf8_string(const char *s, size_t len, size_t max)
{
	if (len == 0 || len > max || memchr(s, '\0', len) != NULL)
		return NULL;
	return json_stringn(s, len);	/* NULL when not UTF-8 */
}

json_t *
params_status(const char *profile, const char **why)
{
	json_t *p;

	*why = NULL;
	if (profile == NULL)
		return NULL;
	if (!name_is_profile(profile))
		return fail(why, "a profile name is [a-z0-9][a-z0-9_-]{0,63}");
	p = json_object();
	json_object_set_new(p, "profile", json_string(profile));
	return p;
}

json_t *
params_plan(const char *profile, const char *key, const char *handle,
    json_t *plugins, const char **why)
{
	json_t *p = NULL, *k;

	if (plugins == NULL || !json_is_array(plugins) ||
	    json_array_size(plugins) == 0) {
		fail(why, "a plan names at least one plugin");
		goto out;
	}
	if (json_array_size(plugins) > PROTO_MAX_PLUGINS) {
		fail(why, "a plan names at most 64 plugins");
		goto out;
	}
	if ((handle != NULL) == (profile != NULL || key != NULL)) {
		fail(why, "a plan names either a profile and a key, or a handle");
		goto out;
	}
	p = json_object();
	if (handle != NULL) {
		if (!id_is_valid(handle, PROTO_PREFIX_HANDLE)) {
			fail(why, "a handle is f_ and 32 lowercase hex digits");
			goto bad;
		}
		json_object_set_new(p, "handle", json_string(handle));
	} else {
		if (profile == NULL || key == NULL) {
			fail(why, "a plan by key names both the profile and the key");
			goto bad;
		}
		if (!name_is_profile(profile)) {
			fail(why, "a profile name is [a-z0-9][a-z0-9_-]{0,63}");
			goto bad;
		}
		k = utf8_string(key, strlen(key), PROTO_MAX_KEY);
		if (k == NULL) {
			fail(why, "a key is 1 to 1024 bytes of UTF-8");
			goto bad;
		}
		json_object_set_new(p, "profile", json_string(profile));
		json_object_set_new(p, "key", k);
	}
	json_object_set_new(p, "plugins", plugins);
	return p;
bad:
	json_decref(p);
	p = NULL;
out:
	json_decref(plugins);
	return p;
}

static int
add_binding(json_t *inputs, const char *name, size_t nlen, const char *val,
    size_t vlen, const char **why)
{
	char n[33];
	json_t *v;

	if (nlen == 0 || nlen >= sizeof(n)) {
		*why = "an input name is [a-z][a-z0-9_]{0,31}";
		return -1;
	}
	memcpy(n, name, nlen);
	n[nlen] = '\0';
	if (!name_is_input(n)) {
		*why = "an input name is [a-z][a-z0-9_]{0,31}";
		return -1;
	}
	if (json_object_get(inputs, n) != NULL) {
		*why = "an input is bound twice";
		return -1;
	}
	if (json_object_size(inputs) >= PROTO_MAX_INPUTS) {
		*why = "a plugin takes at most 8 inputs";
		return -1;
	}
	v = utf8_string(val, vlen, PARAMS_MAX_VALUE);
	if (v == NULL) {
		*why = "an input is bound to a placeholder like ${name}";
		return -1;
	}
	json_object_set_new(inputs, n, v);
	return 0;
}

int
params_plugin_spec(json_t *plugins, const char *spec, const char **why)
{
	const char *colon = strchr(spec, ':');
	const char *at, *end = colon ? colon : spec + strlen(spec);
	char name[33], version[21];
	json_t *p, *inputs = NULL;
	size_t n;

	at = memchr(spec, '@', (size_t)(end - spec));
	n = (size_t)((at ? at : end) - spec);
	if (n == 0 || n >= sizeof(name)) {
		*why = "a plugin name is [a-z][a-z0-9-]{0,31}";
		return -1;
	}
	memcpy(name, spec, n);
	name[n] = '\0';
	if (!name_is_plugin(name)) {
		*why = "a plugin name is [a-z][a-z0-9-]{0,31}";
		return -1;
	}
	p = json_object();
	json_object_set_new(p, "name", json_string(name));
	if (at != NULL) {
		n = (size_t)(end - at - 1);
		if (n == 0 || n >= sizeof(version)) {
			*why = "a version is MAJOR.MINOR.PATCH";
			goto bad;
		}
		memcpy(version, at + 1, n);
		version[n] = '\0';
		if (!version_is_valid(version)) {
			*why = "a version is MAJOR.MINOR.PATCH";
			goto bad;
		}
		json_object_set_new(p, "version", json_string(version));
	}
	if (colon != NULL) {
		const char *s = colon + 1;
		inputs = json_object();
		/* INPUT=VALUE[,INPUT=VALUE...]; a placeholder has no comma */
		for (;;) {
			const char *comma = strchr(s, ','), *eq;
			const char *e = comma ? comma : s + strlen(s);
			eq = memchr(s, '=', (size_t)(e - s));
			if (eq == NULL) {
				*why = "a binding is INPUT=${placeholder}";
				goto bad;
			}
			if (add_binding(inputs, s, (size_t)(eq - s), eq + 1,
			    (size_t)(e - eq - 1), why) != 0)
				goto bad;
			if (comma == NULL)
				break;
			s = comma + 1;
		}
		json_object_set_new(p, "inputs", inputs);
		inputs = NULL;
	}
	if (json_array_size(plugins) >= PROTO_MAX_PLUGINS) {
		*why = "a plan names at most 64 plugins";
		goto bad;
	}
	json_array_append_new(plugins, p);
	return 0;
bad:
	json_decref(inputs);
	json_decref(p);
	return -1;
}

json_t *
params_plugins_json(const json_t *arr, const char **why)
{
	json_t *out, *p;
	size_t i;

	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > PROTO_MAX_PLUGINS)
		return fail(why, "plugins is an array of 1 to 64 plugins");
	out = json_array();
	json_array_foreach(arr, i, p) {
		json_t *q, *name, *version, *inputs, *val;
		const char *k;

		name = json_object_get(p, "name");
		version = json_object_get(p, "version");
		inputs = json_object_get(p, "inputs");
		if (!json_is_object(p) || json_object_size(p) != (size_t)(1 +
		    (version != NULL) + (inputs != NULL)) ||
		    !json_is_string(name) ||
		    strlen(json_string_value(name)) != json_string_length(name) ||
		    !name_is_plugin(json_string_value(name))) {
			json_decref(out);
			return fail(why, "a plugin is {name, version?, inputs?} with "
			    "a name [a-z][a-z0-9-]{0,31}");
		}
		if (version != NULL && (!json_is_string(version) ||
		    strlen(json_string_value(version)) !=
		    json_string_length(version) ||
		    !version_is_valid(json_string_value(version)))) {
			json_decref(out);
			return fail(why, "a version is MAJOR.MINOR.PATCH");
		}
		q = json_object();
		json_object_set_new(q, "name", json_string(json_string_value(name)));
		if (version != NULL)
			json_object_set_new(q, "version",
			    json_string(json_string_value(version)));
		json_array_append_new(out, q);
		if (inputs == NULL)
			continue;
		if (!json_is_object(inputs)) {
			json_decref(out);
			return fail(why, "inputs maps input names to placeholders");
		}
		json_t *bind = json_object();
		json_object_set_new(q, "inputs", bind);
		json_object_foreach(inputs, k, val) {
			if (!json_is_string(val) || add_binding(bind, k, strlen(k),
			    json_string_value(val), json_string_length(val),
			    why) != 0) {
				json_decref(out);
				if (!json_is_string(val))
					*why = "an input is bound to a placeholder like "
					    "${name}";
				return NULL;
			}
		}
	}
	return out;
}

static int
generic(const json_t *p)
{
	const json_t *in = json_object_get(p, "inputs");

	return json_object_size(in) == 1 && json_object_get(in, "input") != NULL;
}

int
params_needs_manifests(const json_t *plugins)
{
	const json_t *p;
	size_t i;

	json_array_foreach(plugins, i, p)
		if (generic(p))
			return 1;
	return 0;
}

void
params_bind_only_inputs(json_t *plugins, const json_t *listing)
{
	const json_t *m;
	json_t *p;
	size_t i, j;

	json_array_foreach(plugins, i, p) {
		const json_t *pin = json_object_get(p, "version");
		if (!generic(p))
			continue;
		json_array_foreach(json_object_get(listing, "plugins"), j, m) {
			const json_t *ins = json_object_get(m, "inputs");
			const char *only;
			json_t *val;
			if (!json_equal(json_object_get(m, "name"),
			    json_object_get(p, "name")) || (pin != NULL &&
			    !json_equal(pin, json_object_get(m, "version"))) ||
			    json_array_size(ins) != 1)
				continue;
			only = json_string_value(json_object_get(
			    json_array_get(ins, 0), "name"));
			if (only == NULL || strcmp(only, "input") == 0)
				break;
			val = json_incref(json_object_get(json_object_get(p,
			    "inputs"), "input"));
			json_object_set_new(p, "inputs", json_object());
			json_object_set_new(json_object_get(p, "inputs"), only, val);
			break;
		}
	}
}

json_t *
params_run(const char *plan, const char **why)
{
	json_t *p;

	if (!id_is_valid(plan, PROTO_PREFIX_PLAN))
		return fail(why, "a plan id is pl_ and 32 lowercase hex digits");
	p = json_object();
	json_object_set_new(p, "plan", json_string(plan));
	return p;
}

json_t *
params_release(const char *handle, const char **why)
{
	json_t *p;

	if (!id_is_valid(handle, PROTO_PREFIX_HANDLE))
		return fail(why, "a handle is f_ and 32 lowercase hex digits");
	p = json_object();
	json_object_set_new(p, "handle", json_string(handle));
	return p;
}

json_t *
params_change(const char *text, size_t len, const char **why)
{
	json_t *p, *t = utf8_string(text, len, PROTO_MAX_TEXT);

	if (t == NULL)
		return fail(why, "the text is 1 to 4096 bytes of UTF-8");
	p = json_object();
	json_object_set_new(p, "text", t);
	return p;
}
