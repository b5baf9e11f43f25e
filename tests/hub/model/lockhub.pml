/* The ticket/decision protocol of hub mode (docs/hub.md), as a Promela
 * model checked by spin (tests/hub/model/run-model, in make check). Two
 * models in one file, each with the adversary its properties are about.
 *
 * SAFETY (the default), against a HOSTILE HUB. Parties: console 0
 * issues tickets for one plan, keeps the pending entries and one-use
 * keys, checks decisions in the order of docs/hub.md, renews expired
 * tickets, may restart. A second console shares the hub and the approver,
 * who pins both: its ticket has console 0's first id (ids are each
 * console's own choice; the model relies on nonces being unique, not ids
 * across consoles) and the approver approved it; the hub holds that
 * decision. The approver's device (lox) signs decisions only on tickets
 * whose instance signature holds. The hub holds the hub key (its
 * countersignature proves nothing) and the network: it drops,
 * duplicates, reorders, replays and alters messages, forges tickets and
 * decisions, swaps sealed boxes, relays the second console's decision to
 * console 0, and has an enrolled device console 0 does not pin sign for
 * it (a stolen device, or another team's). The file may change at any
 * time. The hub's hostile actions are bounded (budget, 3 unless
 * LOCKHUB_BUDGET says); relaying, dropping and holding are free.
 * Signatures are bits: a message keeps its device (or instance)
 * signature only while the signed fields are the ones signed; the hub
 * cannot make a valid device or instance signature. Properties, asserted
 * where console 0 runs its plan:
 *   - no run without a matching fresh decision: a device this console
 *     pins approved exactly this console's ticket and nonce, and the
 *     ticket had not expired;
 *   - no run twice: the plan runs at most once, over every renewal and
 *     restart;
 *   - stale content is never answered: what runs is the content the
 *     ticket was made on;
 *   - the values that reach the plugins are the ones the approver sealed.
 *
 * AVAILABILITY (-DHONEST), against an ENROLLED BUT UNPINNED DEVICE with an
 * HONEST HUB (issue 26 item 1) and a QUORUM (issue 29): two consoles (two
 * teams) share the hub; console 0 pins alice and bob and needs both
 * (approvals = 2), console 1 pins mallory; all three devices are enrolled
 * on the hub. Mallory decides whatever she is shown and may also hold
 * console 0's ticket bytes (leaked: the worst case); any device may
 * decide again. Properties:
 *   - lock-out: the hub never refuses the decision of a device the
 *     console pins but for that device's own earlier decision (not
 *     because another device, pinned or not, decided first: with a
 *     quorum the first decision winning locks the second approver out);
 *   - listing: a device is shown only the tickets of the consoles that
 *     pin it.
 *
 * Every check can be switched off at run time (its bit G_... in the
 * environment's LOCKHUB_OFF, read once by init, so one compiled verifier
 * serves every run): run-model switches each off in turn. A check the
 * properties depend on makes spin find a violation when it is off. A check marked BACK-UP below is one whose work another
 * check also does in this model: with it off alone the model still
 * verifies, and run-model switches it off together with the check it
 * backs up to show that one of the two is needed; its comment says what
 * it defends beyond the model. */

#define NC	2		/* consoles (instances) */
#define NT	2		/* console 0's tickets: the first and a renewal */
#define NONE	255
#define FORGED	7		/* a nonce no console made */

mtype = { APPROVE, DENY };

/* The checks, by bit: LOCKHUB_OFF names those switched off. */
#define G_DEVSIG	1	/* console: the device signature */
#define G_PINNED	2	/* console: a pinned, confirmed device */
#define G_PENDING	4	/* console: a pending entry of its own */
#define G_INSTANCE	8	/* console: its instance key */
#define G_NONCE		16	/* console: the ticket's nonce */
#define G_CONSUME	32	/* console: the entry consumed at once */
#define G_EXPIRY	64	/* console: not expired by its clock */
#define G_BOX		128	/* console: the box the device hashed */
#define G_KEY		256	/* console: the one-use key in memory */
#define G_STALE		512	/* console: the content fetched again */
#define G_RENEW_DELETE	1024	/* console: a renewal deletes the old entry */
#define G_LOXSIG	2048	/* lox: the instance signature */
#define G_HUB_LIST	4096	/* hub: listed to the named devices only */
#define G_HUB_ACCEPT	8192	/* hub: decided by a named device only */
#define G_HUB_PERDEV	16384	/* hub: one decision per device, not the
				 * first only (issue 29) */
#define ON(g)		((off & (g)) == 0)

int off = 0;			/* set by init, constant after */

#ifndef HONEST

#define NONCE(t)	(1 + (t))	/* console 0's, fresh per ticket */
#define NONCE1		5		/* console 1's ticket's */

/* console -> hub: console, ticket id, nonce, instance signature holds */
chan c2h = [0] of { byte, byte, byte, bit };
/* hub -> device */
chan h2d = [0] of { byte, byte, byte, bit };
/* device -> hub: a device-signed decision (its instance key, ticket id,
 * nonce and verdict are signed fields) */
chan d2h = [0] of { byte, byte, byte, mtype };
/* hub -> console 0: instance, id, nonce, verdict, device signature holds,
 * the signing device is one this console pins, box intact */
chan h2c = [0] of { byte, byte, byte, mtype, bit, bit, bit };

/* console 0 */
bit pending[NT];		/* pending entry: ticket id -> nonce, expiry */
byte pnonce[NT];
bit haskey[NT];			/* its one-use key, in memory only */
bit expired[NT];		/* by the console's clock */
byte pver[NT];			/* the content version the ticket was made on */
byte next = 0;			/* tickets issued */
byte content = 0;		/* the file's current version */

/* The hub's hostile actions and the console's restarts are bounded, so
 * the state space stays small; every kind of action stays possible at
 * every point. */
byte budget = 3;		/* LOCKHUB_BUDGET, else 3 */
bit restarted = 0;

/* ghost state, for the assertions only */
byte approved[NT];		/* bit n: the device approved console 0's
				 * ticket with id t and nonce n */
byte runs = 0;			/* runs of the plan */

inline issue() {
	/* A ticket: fresh id and nonce, a one-use key, made on the content
	 * fetched now (the first fetch). A renewal is a new ticket of the
	 * same plan; its content is named unchecked and checked at the run. */
	atomic {
		if
		:: next < NT ->
			pending[next] = 1;
			pnonce[next] = NONCE(next);
			haskey[next] = 1;
			expired[next] = 0;
			pver[next] = (next == 0 -> content : pver[next - 1]);
			if
			:: c2h ! 0, next, NONCE(next), 1
			:: true		/* lost */
			fi;
			next++
		:: else -> skip
		fi
	}
}

proctype console()
{
	byte ci, t, n, i;
	mtype v;
	bit devsig, pinned, boxok;

	issue();
	do
	:: h2c ? ci, t, n, v, devsig, pinned, boxok ->
		atomic {
		/* the check chain, in order; any failure answers on the closed
		 * list and runs nothing */
		if
		:: t >= NT -> goto refused	/* the model's bound */
		:: else -> skip
		fi;
		if
		:: ON(G_DEVSIG) && !devsig -> goto refused
		:: else -> skip
		fi;
		/* a pinned and confirmed device key: the console's own check
		 * stays the authority over who decides, whatever the hub took
		 * (issue 26 item 1) */
		if
		:: ON(G_PINNED) && !pinned -> goto refused
		:: else -> skip
		fi;
		/* BACK-UP of the one-use key (G_KEY): in the model every
		 * decision this refuses (a consumed ticket, a renewed one, one
		 * from before a restart) finds no key to open its box. Beyond
		 * the model it is how the console finds the ticket's state at
		 * all (its hash, nonce, commitment, expiry), and it refuses a
		 * second decision for a plan without placeholders, whose empty
		 * box needs no key to be opened. */
		if
		:: ON(G_PENDING) && !pending[t] -> goto refused
		:: else -> skip
		fi;
		/* BACK-UP of the nonce (G_NONCE): the instance key the device
		 * signed is this console's. Another console's ticket has
		 * another nonce. Beyond the model it is the cheap, explicit
		 * check that a decision for another console sharing the
		 * approver is not for this one, should two consoles ever share
		 * an id and a nonce (a copied home, a bad random source). */
		if
		:: ON(G_INSTANCE) && ci != 0 -> goto refused
		:: else -> skip
		fi;
		/* BACK-UP of the instance key (G_INSTANCE): the nonce (and
		 * the ticket hash that covers it) binds the decision to
		 * exactly this ticket. Within one console the id already
		 * does, ids being fresh; across consoles (whose ids may be
		 * the same) the instance key does. Beyond the model it keeps
		 * an approval of an earlier ticket with the same id and
		 * instance (a restored home) from counting. */
		if
		:: ON(G_NONCE) && pnonce[t] != n -> goto refused
		:: else -> skip
		fi;
		if			/* consumed before anything else runs */
		:: ON(G_CONSUME) -> pending[t] = 0
		:: else -> skip
		fi;
		if
		:: ON(G_EXPIRY) && expired[t] -> goto refused
		:: else -> skip
		fi;
		if
		:: v != APPROVE -> goto refused
		:: else -> skip
		fi;
		if
		:: ON(G_BOX) && !boxok -> goto refused
		:: else -> skip
		fi;
		/* BACK-UP of the pending check (G_PENDING): the one-use key is
		 * there only for a pending ticket of this run of the console.
		 * Beyond the model it is what opens the box: without it no
		 * value reaches a plugin. */
		if
		:: ON(G_KEY) && !haskey[t] -> goto refused
		:: else -> skip
		fi;
		haskey[t] = 0;		/* the one-use key is zeroed */
		if
		:: ON(G_STALE) && content != pver[t] -> goto refused	/* E_STALE */
		:: else -> skip
		fi;
		/* the run */
		assert(pinned && ci == 0 && ((approved[t] >> n) & 1) &&
		    pnonce[t] == n);
		assert(!expired[t]);
		assert(content == pver[t]);
		assert(boxok);
		assert(runs == 0);
		runs++;
refused:	ci = 0; t = 0; n = 0; v = DENY; devsig = 0; pinned = 0; boxok = 0
		}
	:: atomic {
		/* the console's clock passes a pending ticket's expiry */
		i = 0;
		do
		:: i < next && pending[i] && !expired[i] -> expired[i] = 1; break
		:: i < next -> i++
		:: i >= next -> break
		od;
		i = 0
	   }
	:: atomic {
		/* the agent asks to run an expired plan: a renewal, a new
		 * ticket of the same plan */
		i = 0;
		do
		:: i < next && pending[i] && expired[i] ->
			/* BACK-UP of the expiry check (G_EXPIRY): the renewed
			 * ticket had expired, so a late approval of it is
			 * refused there too. Beyond the model it frees the old
			 * ticket's state and key at once rather than at its
			 * run, and keeps it from counting should the console's
			 * clock step back. */
			if
			:: ON(G_RENEW_DELETE) -> pending[i] = 0
			:: else -> skip
			fi;
			issue();
			break
		:: i < next -> i++
		:: i >= next -> break
		od;
		i = 0
	   }
	:: !restarted -> atomic {
		/* a restart: the one-use keys were only in memory */
		restarted = 1;
		i = 0;
		do
		:: i < NT -> haskey[i] = 0; i++
		:: else -> break
		od;
		i = 0
	   }
	:: timeout -> break
	od
}

/* The approver, pinned by both consoles: signs only tickets whose
 * instance signature holds, and only for the instance, id and nonce it
 * saw. */
proctype device()
{
	byte c, t, n;
	bit sig;

	do
	:: h2d ? c, t, n, sig ->
		if
		/* BACK-UP of the console's nonce check (G_NONCE): a forged
		 * ticket's approval names a nonce the console never made.
		 * Beyond the model it keeps the human from reading a screen
		 * the hub wrote: lox renders only what a console signed. */
		:: (sig || !ON(G_LOXSIG)) && t < NT ->
			if
			:: atomic { approved[t] = approved[t] |
			    (c == 0 -> (1 << n) : 0); d2h ! c, t, n, APPROVE }
			:: d2h ! c, t, n, DENY
			:: skip		/* the human never decides */
			fi
		:: else -> skip		/* refused: not a console's */
		fi;
		c = 0; t = 0; n = 0; sig = 0
	od
}

/* The hostile hub, and the network it controls. */
proctype hub()
{
	byte c, t, n, sc = NONE, st, sn, dc = NONE, dt, dn;
	bit s, other = 1;
	mtype dv;

	do
	/* A second console sharing the hub and the approver: its ticket has
	 * console 0's first id (ids are each console's own choice: the model
	 * does not rely on them being unique across consoles, only nonces)
	 * and the approver approved it. The hub holds that decision and
	 * relays it to console 0 when it likes (a hostile act: it costs
	 * budget). (The second console's own
	 * checks are console 0's; its ticket's way through the hub and lox
	 * adds nothing console 0's does not.) */
	:: budget > 0 && other -> budget--; other = 0;
		h2c ! 1, 0, NONCE1, APPROVE, 1, 1, 1
	/* relay, drop or hold tickets */
	:: c2h ? c, t, n, s -> sc = c; st = t; sn = n;
		if
		:: h2d ! c, t, n, s
		:: skip
		fi;
		c = 0; t = 0; n = 0; s = 0
	:: budget > 0 && sc != NONE -> budget--; h2d ! sc, st, sn, 1	/* duplicate, late */
	/* a forged ticket: no instance signature */
	:: budget > 0 -> budget--; h2d ! 0, 0, FORGED, 0
	/* relay, drop or hold device decisions (another console's too, to
	 * console 0); swap the box */
	:: d2h ? c, t, n, dv -> dc = c; dt = t; dn = n;
		if
		:: h2c ! c, t, n, dv, 1, 1, 1
		:: h2c ! c, t, n, dv, 1, 1, 0	/* another box, same signature */
		:: skip
		fi;
		c = 0; t = 0; n = 0
	/* replay a held decision, as it was or altered (the device
	 * signature no longer holds once the signed fields change) */
	:: budget > 0 && dc != NONE -> budget--;
		h2c ! dc, dt, dn, APPROVE, (dv == APPROVE -> 1 : 0), 1, 1
	/* a genuine decision for one ticket sent as another's: its
	 * signature holds only with its own id and nonce */
	:: budget > 0 && dc == 0 && dt + 1 < NT -> budget--;
		h2c ! 0, dt + 1, NONCE(dt + 1), APPROVE, 0, 1, 1
	/* forge a decision with no device signature, for any ticket and its
	 * nonce (guessed, or read off the ticket) */
	:: budget > 0 -> budget--; h2c ! 0, 0, NONCE(0), APPROVE, 0, 1, 1
	:: budget > 0 -> budget--; h2c ! 0, 1, NONCE(1), APPROVE, 0, 1, 1
	/* a decision signed by an enrolled device the console does not pin
	 * (stolen, or another team's, colluding with the hub) */
	:: budget > 0 -> budget--; h2c ! 0, 0, NONCE(0), APPROVE, 1, 0, 1
	:: break
	od
}

/* The file may change at any time between the two fetches. */
proctype file()
{
	do
	:: content < 1 -> content++
	:: break
	od
}

init {
	c_code {
		{
		char *e = getenv("LOCKHUB_OFF"), *b = getenv("LOCKHUB_BUDGET");
		now.off = e != NULL ? atoi(e) : 0;
		now.budget = b != NULL ? atoi(b) : 3;
		}
	};
	atomic { run console(); run device(); run hub(); run file() }
}

#else /* HONEST */

#define ALICE	0		/* pinned by console 0 */
#define BOB	1		/* pinned by console 0 */
#define MALLORY	2		/* pinned by console 1 only */
#define ND	3
#define BIT(d)	(1 << (d))

/* console c -> hub: its ticket, naming the devices it pins (the TICKET's
 * approvers field, signed by the console) as a mask */
chan c2h = [0] of { byte, byte };
/* hub -> device d: the ticket of console c is listed to it */
chan h2d[ND] = [0] of { byte };
/* device -> hub: device, the console whose ticket, verdict */
chan d2h = [0] of { byte, byte, mtype };
/* hub -> console: the device that decided, verdict (countersigned) */
chan h2c[NC] = [0] of { byte, mtype };

/* the honest hub's store, per console's ticket */
bit posted[NC];
byte named[NC];			/* the devices the ticket names, a mask */
byte decided[NC];		/* the devices whose decision it keeps */

/* ghost: console 0 pins alice and bob and needs both (approvals = 2),
 * console 1 pins mallory (approvals = 1) */
byte pins[NC];
#define PINS(c, d)	((pins[c] & BIT(d)) != 0)
#define QUORUM(c)	((c) == 0 -> 2 : 1)

proctype console(byte c)
{
	byte d, counted = 0, n = 0;
	mtype v;

	c2h ! c, pins[c];
end:	do
	:: h2c[c] ? d, v ->
		/* the console's check stays the authority: a decision by a
		 * device it does not pin is refused and does not count; one
		 * approver counts once; a deny from a pinned one ends it */
		if
		:: PINS(c, d) && v == APPROVE && (counted & BIT(d)) == 0 ->
			counted = counted | BIT(d); n++;
			if
			:: n == QUORUM(c) -> skip	/* runs, once */
			:: else -> skip
			fi
		:: else -> skip
		fi
	od
}

/* A device decides what it is shown, maybe again (lox approve twice).
 * Mallory also holds console 0's ticket bytes (leaked) and may decide it
 * at any time. */
proctype device(byte d)
{
	byte c;

end:	do
	:: h2d[d] ? c ->
		/* listing: shown only a ticket of a console that pins it */
		assert(PINS(c, d));
		if
		:: d2h ! d, c, APPROVE
		:: d2h ! d, c, DENY
		:: skip
		fi
	:: d == MALLORY && posted[0] ->
		if
		:: d2h ! d, 0, APPROVE
		:: skip		/* the hub is busy: later */
		fi
	od
}

proctype hub()
{
	byte c, d, x, s;
	mtype v;

end:	do
	:: c2h ? c, d -> posted[c] = 1; named[c] = d
	/* GET /v1/pending: each ticket to the devices it names that have
	 * not decided it (the hub before issue 29: to none once decided) */
	:: atomic { c = 0; x = 0;
		if :: c = 0 :: c = 1 fi;
		if :: x = ALICE :: x = BOB :: x = MALLORY fi;
		s = (posted[c] && (ON(G_HUB_PERDEV) -> (decided[c] &
		    BIT(x)) == 0 : decided[c] == 0) &&
		    ((named[c] & BIT(x)) != 0 || !ON(G_HUB_LIST)))
	   } ->
		if
		:: s -> if
			:: h2d[x] ! c
			:: skip		/* the device is busy: later */
			fi
		:: else -> skip
		fi;
		c = 0; x = 0; s = 0
	/* POST /v1/tickets/ID/decision: from a device the ticket names, one
	 * per device (the hub before issue 29: the first one wins) */
	:: d2h ? d, c, v ->
		if
		:: ON(G_HUB_ACCEPT) && (named[c] & BIT(d)) == 0 -> skip	/* 404 */
		:: else ->
			if
			:: (ON(G_HUB_PERDEV) && (decided[c] & BIT(d)) != 0) ||
			   (!ON(G_HUB_PERDEV) && decided[c] != 0) ->
				/* 409. lock-out: a device the console pins is
				 * refused only for its own earlier decision */
				assert(!PINS(c, d) || (decided[c] & BIT(d)) != 0)
			:: else -> decided[c] = decided[c] | BIT(d); h2c[c] ! d, v
			fi
		fi
	od
}

init {
	c_code {
		{
		char *e = getenv("LOCKHUB_OFF");
		now.off = e != NULL ? atoi(e) : 0;
		}
	};
	atomic {
		pins[0] = BIT(ALICE) | BIT(BOB); pins[1] = BIT(MALLORY);
		run hub();
		run console(0); run console(1);
		run device(ALICE); run device(BOB); run device(MALLORY)
	}
}

#endif
