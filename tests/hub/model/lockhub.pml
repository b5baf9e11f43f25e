/* The ticket/decision protocol of hub mode (docs/hub.md), as a Promela
 * model checked by spin (tests/hub/model/run-model, in make check).
 *
 * Parties: the console (issues tickets for one plan, keeps the pending
 * entries and one-use keys, checks decisions in the order of docs/hub.md,
 * renews expired tickets, may restart), the approver's device (lox: signs
 * decisions only on tickets whose instance signature holds), a hostile hub
 * that holds the hub key (so its countersignature proves nothing), and a
 * lossy network the hub controls: it drops, duplicates, reorders, replays
 * and alters messages, forges tickets and decisions, and swaps sealed
 * boxes. The file may change at any time.
 *
 * Signatures are bits: a message keeps its device (or instance) signature
 * only while the signed fields are the ones signed; the hub cannot make a
 * valid device or instance signature. Properties, asserted where the
 * console runs the plan:
 *   - no run without a matching fresh decision: the device approved
 *     exactly this ticket and nonce, and the ticket had not expired;
 *   - no run twice: the plan runs at most once, over every renewal and
 *     restart;
 *   - stale content is never answered: what runs is the content the
 *     ticket was made on;
 *   - the values that reach the plugins are the ones the approver sealed.
 * The checks that carry the properties can be switched off (-DNO_DEVSIG,
 * -DNO_CONSUME, -DNO_EXPIRY, -DNO_STALE, -DNO_BOX): run-model requires spin
 * to find a violation for each, so the properties are shown to depend on
 * them. The nonce check and the consumption of a renewed ticket's entry
 * are kept as the console does them; in this model they back up the
 * device signature and the expiry check (unique ids), so switching one
 * off alone finds nothing. */

#define NT	2		/* tickets: the first one and a renewal */
#define NONE	255

mtype = { APPROVE, DENY };

/* console -> hub: ticket id, nonce, instance signature holds */
chan c2h = [0] of { byte, byte, bit };
/* hub -> device */
chan h2d = [0] of { byte, byte, bit };
/* device -> hub: a device-signed decision */
chan d2h = [0] of { byte, byte, mtype };
/* hub -> console: id, nonce, verdict, device signature holds, box intact */
chan h2c = [0] of { byte, byte, mtype, bit, bit };

/* the console */
bit pending[NT];		/* pending entry: ticket id -> nonce, expiry */
byte pnonce[NT];
bit haskey[NT];			/* its one-use key, in memory only */
bit expired[NT];		/* by the console's clock */
byte pver[NT];			/* the content version the ticket was made on */
byte next = 0;			/* tickets issued */
byte content = 0;		/* the file's current version */

/* The hub's hostile actions and the console's restarts are bounded, so
 * the state space stays small (a few seconds); every kind of action stays
 * possible at every point. */
byte budget = 3;
bit restarted = 0;

/* ghost state, for the assertions only */
byte approved[NT];		/* nonce + 1 the device approved, or 0 */
byte runs = 0;			/* runs of the plan */

inline issue() {
	/* A ticket: fresh id and nonce, a one-use key, made on the content
	 * fetched now (the first fetch). A renewal is a new ticket of the
	 * same plan; its content is named unchecked and checked at the run. */
	atomic {
		if
		:: next < NT ->
			pending[next] = 1;
			pnonce[next] = next * 7 + 1;
			haskey[next] = 1;
			expired[next] = 0;
			pver[next] = (next == 0 -> content : pver[next - 1]);
			if
			:: c2h ! next, pnonce[next], 1
			:: true		/* lost */
			fi;
			next++
		:: else -> skip
		fi
	}
}

active proctype console()
{
	byte t, n, i;
	mtype v;
	bit devsig, boxok;

	issue();
	do
	:: h2c ? t, n, v, devsig, boxok ->
		atomic {
		/* the check chain, in order; any failure answers on the closed
		 * list and runs nothing */
		if
		:: t >= NT -> goto refused
		:: else -> skip
		fi;
#ifndef NO_DEVSIG
		if
		:: !devsig -> goto refused
		:: else -> skip
		fi;
#endif
		if
		:: !pending[t] -> goto refused
		:: else -> skip
		fi;
		if
		:: pnonce[t] != n -> goto refused
		:: else -> skip
		fi;
#ifndef NO_CONSUME
		pending[t] = 0;		/* consumed before anything else runs */
#endif
#ifndef NO_EXPIRY
		if
		:: expired[t] -> goto refused
		:: else -> skip
		fi;
#endif
		if
		:: v != APPROVE -> goto refused
		:: else -> skip
		fi;
#ifndef NO_BOX
		if
		:: !boxok || !haskey[t] -> goto refused
		:: else -> skip
		fi;
#endif
		haskey[t] = 0;		/* the one-use key is zeroed */
#ifndef NO_STALE
		if
		:: content != pver[t] -> goto refused	/* E_STALE */
		:: else -> skip
		fi;
#endif
		/* the run */
		assert(approved[t] == n + 1 && pnonce[t] == n);
		assert(!expired[t]);
		assert(content == pver[t]);
		assert(boxok);
		assert(runs == 0);
		runs++;
refused:	t = 0; n = 0; v = DENY; devsig = 0; boxok = 0
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
		 * ticket of the same plan; the old entry is deleted, so a late
		 * approval of the old ticket fails */
		i = 0;
		do
		:: i < next && pending[i] && expired[i] ->
			pending[i] = 0;
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

/* The approver: signs only tickets whose instance signature holds, and
 * only for the id and nonce it saw. */
active proctype device()
{
	byte t, n;
	bit sig;

	do
	:: h2d ? t, n, sig ->
		if
		:: sig && t < NT ->
			if
			:: atomic { approved[t] = n + 1; d2h ! t, n, APPROVE }
			:: d2h ! t, n, DENY
			:: skip		/* the human never decides */
			fi
		:: else -> skip		/* refused: not the console's */
		fi;
		t = 0; n = 0; sig = 0
	od
}

/* The hostile hub, and the network it controls. */
active proctype hub()
{
	byte t, n, st = NONE, sn, dt = NONE, dn;
	bit s;
	mtype dv;

	do
	/* relay, drop or hold tickets */
	:: c2h ? t, n, s -> st = t; sn = n;
		if
		:: h2d ! t, n, s
		:: skip
		fi
	:: budget > 0 && st != NONE -> budget--; h2d ! st, sn, 1	/* duplicate, late */
	/* a forged ticket: no instance signature */
	:: budget > 0 -> budget--; h2d ! 0, 99, 0
	/* relay, drop or hold device decisions; swap the box */
	:: d2h ? t, n, dv -> dt = t; dn = n;
		if
		:: h2c ! t, n, dv, 1, 1
		:: h2c ! t, n, dv, 1, 0	/* another box, same signature */
		:: skip
		fi
	/* replay a held decision, as it was or altered (the device
	 * signature no longer holds once the signed fields change) */
	:: budget > 0 && dt != NONE -> budget--;
		h2c ! dt, dn, APPROVE, (dv == APPROVE -> 1 : 0), 1
	/* a genuine decision for one ticket sent as another's: its
	 * signature holds only with its own id and nonce */
	:: budget > 0 && dt != NONE && dt + 1 < NT -> budget--;
		h2c ! dt + 1, (dt + 1) * 7 + 1, APPROVE, 0, 1
	/* forge a decision with no device signature, for any ticket and its
	 * nonce (guessed, or read off the ticket) */
	:: budget > 0 -> budget--; h2c ! 0, 1, APPROVE, 0, 1
	:: budget > 0 -> budget--; h2c ! 1, 8, APPROVE, 0, 1
	:: break
	od
}

/* The file may change at any time between the two fetches. */
active proctype file()
{
	do
	:: content < 1 -> content++
	:: break
	od
}
