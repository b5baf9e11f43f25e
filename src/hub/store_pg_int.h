/* The PostgreSQL engine's insides, shared by its three files (store_pg.c:
 * the connection, the hub's tables, migrations; store_pg_page.c: the phone
 * page's tables; store_pg_watch.c: the wake-ups between hub processes,
 * docs/hub.md, "Operating several hubs"). Not an interface of the hub. */
#ifndef LOCKFILE_HUB_STORE_PG_INT_H
#define LOCKFILE_HUB_STORE_PG_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include <libpq-fe.h>

#include "hub/store.h"
#include "lib/buf.h"

/* pg_type.h's OIDs of the types the statements bind. */
#define OID_BYTEA	17
#define OID_INT8	20
#define OID_TEXT	25

#define MAX_PARAMS	8

/* The one channel of NOTIFY between hub processes. */
#define PG_CHANNEL	"lockhub"

typedef void (*pgs_watch_cb)(void *arg, char kind, const char *id);

/* The operations' connections (store_pg.c, pgs_lock): a few, made when
 * first needed. */
#define PG_POOL		4

struct pg {
	PGconn *conn[PG_POOL];	/* conn[i] is the holder of busy[i]'s */
	int busy[PG_POOL];	/* under mu */
	char *url;
	pthread_mutex_t mu;
	pthread_cond_t free;	/* a connection was given back */
	atomic_int self_pid[PG_POOL];	/* their backends: our NOTIFYs */
	/* The watch thread (store_pg_watch.c): its own connection. */
	pthread_t watcher;
	int watching;
	atomic_int stop;
	pgs_watch_cb cb;
	void *cb_arg;
};

struct params {
	int n;
	Oid type[MAX_PARAMS];
	const char *val[MAX_PARAMS];
	int len[MAX_PARAMS];
	int fmt[MAX_PARAMS];
	unsigned char i8[MAX_PARAMS][8];
};

#define PG(s) ((struct pg *)(s)->impl)

void pgs_bytes(struct params *p, const void *d, size_t n);
void pgs_text(struct params *p, const char *t);
void pgs_int(struct params *p, long long v);
long long pgs_r_int(const PGresult *r, int row, int col);
struct buf *pgs_r_buf(const PGresult *r, int row, int col, size_t max);
void pgs_log(const char *what, const char *msg);
void pgs_lock(struct hub_store *s);
void pgs_unlock(struct hub_store *s);
PGconn *pgs_conn(struct hub_store *s);
PGconn *pgs_connect(const char *url);
int pgs_readable(PGconn *c);
int pgs_connected(struct hub_store *s);
int pgs_unreachable(struct hub_store *s);
PGresult *pgs_run(struct hub_store *s, const char *what, const char *sql,
    const struct params *pa, ExecStatusType want);
int pgs_cmd(struct hub_store *s, const char *what, const char *sql);
long long pgs_affected(PGresult *r);

/* store_pg_page.c */
enum hs_status pgs_token_put(struct hub_store *, enum hs_token,
    const uint8_t hash[32], const char *subject, long long until_ms);
enum hs_status pgs_token_use(struct hub_store *, enum hs_token,
    const uint8_t hash[32], long long now_ms, int consume,
    char subject[HS_MAX_SUBJECT + 1]);
enum hs_status pgs_passkey_enroll(struct hub_store *,
    const struct hs_passkey *);
enum hs_status pgs_passkey_get(struct hub_store *, const uint8_t *id,
    const uint8_t *cred, size_t cred_len, struct hs_passkey *out);
enum hs_status pgs_passkeys(struct hub_store *, struct hs_passkey *out,
    size_t max, size_t *n);
enum hs_status pgs_passkey_revoke(struct hub_store *, const char *name);
enum hs_status pgs_put_card(struct hub_store *, const char *id,
    const uint8_t *body, size_t len);
enum hs_status pgs_get_card(struct hub_store *, const char *id,
    struct buf **body);

/* store_pg_watch.c */
void pgs_changed(struct hub_store *, char kind, const char *id);
int pgs_watch(struct hub_store *, pgs_watch_cb cb, void *arg);
/* Stops the watch thread, if any: before the store is freed. */
void pgs_unwatch(struct hub_store *);

#endif
