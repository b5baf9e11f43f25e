/* The product's paths and names, in one place (as OpenSSH's pathnames.h):
 * the accounts and the socket a host is set up with (docs/host.md), the
 * console account's home layout (docs/console.md), the system
 * configuration's files (etc/README.md) and the Docker images' layout
 * (docs/docker.md). A path a document promises is spelled here once; code
 * builds the rest from it. Each is a default: the socket path, the group,
 * the home and the system configuration directory can be given on the
 * command line or in the environment (tests, host installs), never the
 * names inside the home.
 *
 * Header only, no include: every layer may use it. */
#ifndef LOCKFILE_PATHS_H
#define LOCKFILE_PATHS_H

/* Accounts and the socket (docs/host.md). */
#define LF_CONSOLE_ACCOUNT	"lockfile"	/* runs the console and plugins */
#define LF_AGENT_ACCOUNT	"agent"		/* the images' agent account */
#define LF_CLIENTS_GROUP	"lockfile-clients"	/* may connect */
#define LF_SOCKET_DIR		"/run/lockfile"	/* 2750, setgid the group */
#define LF_SOCKET_NAME		"lockfile.sock"	/* 0660 */
#define LF_SOCKET		LF_SOCKET_DIR "/" LF_SOCKET_NAME

/* The console account's home, relative to it (home_resolve() finds it;
 * docs/console.md, "The home"). */
#define LF_HOME_CONFIG_DIR	".config/lockfile"
#define LF_HOME_POLICY		LF_HOME_CONFIG_DIR "/policy.toml"	/* edited */
#define LF_HOME_STATE_DIR	".local/state/lockfile"
#define LF_HOME_POLICY_APPROVED	LF_HOME_STATE_DIR "/policy.approved.toml"
#define LF_HOME_AUDIT		LF_HOME_STATE_DIR "/audit.log"	/* 0600 */
#define LF_HOME_LEDGER_DIR	LF_HOME_STATE_DIR "/ledger"	/* 0700 */
#define LF_LEDGER_FILE		"ledger"	/* in LF_HOME_LEDGER_DIR */
/* The policy's work_dir when it names none: fetched files, 0400 in 0700
 * directories of their own. */
#define LF_HOME_WORK_DEFAULT	"~/" LF_HOME_STATE_DIR "/work"
/* The plugin store (docs/marketplace.md): plugins/NAME/VERSION/ and the
 * record the console trusts. */
#define LF_HOME_STORE_DIR	".local/share/lockfile"
#define LF_STORE_PLUGINS	"plugins"	/* in LF_HOME_STORE_DIR */
#define LF_STORE_LOCKDB		"plugins.lock"	/* in LF_HOME_STORE_DIR */
/* A marketplace directory's layout, and an installed version's
 * (plugins/NAME/VERSION/); a signature bundle is FILE + LF_BUNDLE_SUFFIX. */
#define LF_MARKET_INDEX		"index.json"
#define LF_PLUGIN_MANIFEST	"manifest.json"
#define LF_PLUGIN_BINARY	"plugin"
#define LF_BUNDLE_SUFFIX	".sigstore.json"
/* A fetched file in its own directory of the work_dir. */
#define LF_WORK_FILE		"data"

/* The system configuration, root's, in LOCKFILE_SYSCONFDIR (config.h;
 * etc/README.md). */
#define LF_SYS_TRUST		"trust.toml"	/* marketplaces, releases */
#define LF_SYS_TRUSTED_ROOT	"trusted_root.json"	/* Sigstore's root */
#define LF_SYS_SYSTEM		"system.toml"	/* the terminal rules */
#define LF_SYS_HOST		"host.toml"	/* doctor --declare-host */

/* The executables, one per role (docs/hacking.md, "Executables"), all
 * installed in one directory (PREFIX/bin, as the build tree has them side
 * by side): each finds the others beside itself (lib/exe.h), never on
 * PATH. `lockfile` is the agent's and forwards the console-side commands,
 * so the names users type stay the same. */
#define LF_EXE_AGENT		"lockfile"		/* client, MCP */
#define LF_EXE_CONSOLE		"lockfile-console"	/* console, store, update */
#define LF_EXE_PARSE_WORKER	"lockfile-parse-worker"	/* hostile lines */
#define LF_EXE_SANDBOX_RUN	"lockfile-sandbox-run"	/* one plugin */
/* Every one, for a list: a release carries them all (docs/releases.md). */
#define LF_EXE_ALL	LF_EXE_AGENT, LF_EXE_CONSOLE, LF_EXE_PARSE_WORKER, \
			LF_EXE_SANDBOX_RUN

/* The Docker images (docs/docker.md): where lox mounts the volumes. */
#define LF_IMAGE_HOME		"/home/" LF_CONSOLE_ACCOUNT
#define LF_IMAGE_SOURCES	"/srv/lockfile"

#endif
