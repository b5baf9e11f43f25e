#!/bin/sh
# make demo: the main job, end to end, in this terminal.
#
# Lays out a demo console home (account `lockfile`) with a local source of
# sample files and the official plugins, starts the console in this
# terminal at security level 0 (clear results: a human alone at the screen),
# and runs a scripted agent (account `agent`) whose questions you approve on
# screen: type `y` (or `n <reason>`), and the value asked for ${email}.
# Run as root (it creates the accounts, hands this terminal to the console
# account for the session, and, unless this machine's /proc already hides
# other accounts' processes, makes a host of its own for the console and the
# agent: a pid and mount namespace whose /proc does; it says so on screen).
set -eu
BUILD=${1:-$(pwd)/build}
LOCKFILE=$BUILD/lockfile
[ "$(id -u)" = 0 ] || { echo "make demo: run as root (it creates accounts)" >&2; exit 1; }
[ -t 0 ] && [ -t 1 ] || { echo "make demo: needs a terminal (you approve on it)" >&2; exit 1; }
TTY=$(tty)

DEMO=/tmp/lockfile-demo
rm -rf "$DEMO"
mkdir -p "$DEMO"
chmod 755 "$DEMO"
HOME_L=$DEMO/home
RUN=$DEMO/run
SRC=$DEMO/files
ETC=$DEMO/etc		# the root-owned system configuration (host.toml)
mkdir -p "$HOME_L/.config/lockfile" "$HOME_L/.local/state/lockfile" \
    "$HOME_L/.local/share/lockfile/plugins" "$RUN" "$SRC/2024" "$SRC/private" \
    "$ETC"
chmod 755 "$ETC"

# --- sample files ---------------------------------------------------------
/usr/bin/python3 - "$SRC" <<'EOF'
import sys
src = sys.argv[1]
body = (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")
o1, o2, x = body.index(b"1 0 obj"), body.index(b"2 0 obj"), len(body)
pdf = body + (b"xref\n0 3\n0000000000 65535 f \n%010d 00000 n \n%010d 00000 n \n"
              b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (o1, o2, x))
open(src + "/2024/invoice-0042.pdf", "wb").write(pdf)
open(src + "/2024/export.json", "wb").write(
    b'{"customer": "ACME", "contact": "billing@acme.example", "total": 1200}\n')
open(src + "/2024/notes.txt", "wb").write(
    "Meeting with Zoë about the invoice.\n".encode())
open(src + "/private/salaries.csv", "wb").write(b"name,salary\nbob,1\n")
import io, zipfile
b = io.BytesIO()
with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("[Content_Types].xml", b"<Types/>")
    z.writestr("word/document.xml", b"<w:document>Q3 report</w:document>")
open(src + "/2024/report.docx", "wb").write(b.getvalue())
EOF

# --- plugins, as `lockfile plugin install` lays them out --------------------
LOCK=$HOME_L/.local/share/lockfile/plugins.lock
/usr/bin/python3 - "$BUILD" "$HOME_L/.local/share/lockfile" <<'EOF'
import hashlib, json, os, shutil, sys
build, store = sys.argv[1], sys.argv[2]
lock = {"schema": 1, "plugins": [], "indexes": []}
for name in ("is-pdf", "is-utf8", "is-json", "contains", "is-encrypted",
             "has-active-content", "archive-within-limits",
             "pdf-signatures-intact"):
    b = os.path.join(build, "plugins", name, name)
    m = json.load(open(os.path.join(build, "plugins", name, "manifest.json")))
    d = os.path.join(store, "plugins", m["name"], m["version"])
    os.makedirs(d, exist_ok=True)
    shutil.copyfile(b, d + "/plugin"); os.chmod(d + "/plugin", 0o755)
    mb = json.dumps(m, sort_keys=True).encode()
    open(d + "/manifest.json", "wb").write(mb)
    lock["plugins"].append({"name": m["name"], "version": m["version"],
        "manifest_sha256": hashlib.sha256(mb).hexdigest(),
        "binary_sha256": hashlib.sha256(open(b, "rb").read()).hexdigest(),
        "marketplace": "official", "official": True, "yanked": False})
open(os.path.join(store, "plugins.lock"), "w").write(json.dumps(lock, indent=1))
EOF

# --- the policy (approved: the demo skips `lockfile policy approve`) -------
cat > "$HOME_L/.config/lockfile/policy.toml" <<EOF
security_level = 0          # clear results: you are alone at this screen
answer_quantum_s = 2
approval_timeout_s = 120
idle_timeout_s = 600
max_plugins_per_handle = 6

[profiles.invoices]
production = false
source = "local"
path = "$SRC"
prefix = "2024/"
EOF
cp "$HOME_L/.config/lockfile/policy.toml" \
    "$HOME_L/.local/state/lockfile/policy.approved.toml"
chmod 600 "$HOME_L/.config/lockfile/policy.toml" \
    "$HOME_L/.local/state/lockfile/policy.approved.toml" "$LOCK"
chown -R lockfile:lockfile "$HOME_L" "$SRC"
# Only the console account may read a source (docs/sources.md): the
# console refuses anything another account could read.
chmod 700 "$HOME_L"
chmod -R go= "$SRC"
chown lockfile:lockfile-clients "$RUN"
chmod 2750 "$RUN"

# --- the scripted agent ------------------------------------------------------
cat > "$DEMO/agent.sh" <<EOF
#!/bin/sh
# The agent: it only ever sees bits.
S=$RUN/lockfile.sock
L=$LOCKFILE
while [ ! -S "\$S" ]; do sleep 0.2; done
sleep 1
say() { printf '\n\033[1magent> %s\033[0m\n' "\$*"; }
say "lockfile status"; \$L status --socket \$S
say "lockfile plugins"; \$L plugins --socket \$S
say "is 2024/invoice-0042.pdf a PDF, UTF-8, JSON? encrypted? active content?"
\$L ask --socket \$S --profile invoices --key 2024/invoice-0042.pdf \
    --plugin is-pdf --plugin is-utf8 --plugin is-json --plugin is-encrypted \
    --plugin has-active-content
say "is 2024/invoice-0042.pdf signed, every signature intact, nothing added since?"
\$L ask --socket \$S --profile invoices --key 2024/invoice-0042.pdf \
    --plugin pdf-signatures-intact
say "does 2024/export.json contain the address you will type for \\\${email}?"
\$L ask --socket \$S --profile invoices --key 2024/export.json \
    --plugin is-json --plugin 'contains:needle=\${email}'
say "is 2024/report.docx an archive within limits (no zip bomb)? active content?"
\$L ask --socket \$S --profile invoices --key 2024/report.docx \
    --plugin archive-within-limits --plugin has-active-content
say "trying a key outside the prefix: 2024/../private/salaries.csv"
\$L ask --socket \$S --profile invoices --key 2024/../private/salaries.csv \
    --plugin is-utf8 || true
say "done: the agent saw only 1, 0 and refusal codes"
EOF
chmod 755 "$DEMO/agent.sh"

cat <<EOF

lockfile demo
=============
The console starts in this terminal as the account 'lockfile'; a scripted
agent (account 'agent') asks it questions about files in $SRC.
Approve each plan with 'y' (or deny with 'n <reason>'); when asked, type a
value for \${email} (try billing@acme.example). The agent's view is printed
with 'agent>' lines. The console stops when the agent is done.

EOF
sleep 2

# The console needs its terminal to be the console account's own while it
# runs (the isolation check refuses a terminal owned by another account).
OWNER=$(stat -c %u:%g "$TTY")
MODE=$(stat -c %a "$TTY")
chown lockfile "$TTY"
restore() { chown "$OWNER" "$TTY"; chmod "$MODE" "$TTY"; }
trap restore EXIT INT TERM

# The console and the agent run on a host whose /proc hides the plugins'
# processes from other accounts, declared by root (docs/host.md): this
# machine, if its /proc does; else a host of the demo's own.
CONSOLE_CMD="setpriv --reuid=lockfile --regid=lockfile --init-groups \
    env LOCKFILE_SYSCONFDIR=$ETC $LOCKFILE console --home $HOME_L \
    --socket $RUN/lockfile.sock"
DECLARE="env LOCKFILE_SYSCONFDIR=$ETC $LOCKFILE doctor --declare-host"
RUN_BOTH="runuser -u agent -- $DEMO/agent.sh & AGENT=\$!
    $CONSOLE_CMD & CONSOLE=\$!
    wait \$AGENT || true; sleep 1
    kill -TERM \$CONSOLE 2>/dev/null || true; wait \$CONSOLE || true"
if $DECLARE >/dev/null 2>&1; then
	echo "This machine's /proc hides other accounts' processes (declared in"
	echo "$ETC/host.toml): the console and the agent run on it."
	sh -c "$RUN_BOTH"
else
	cat <<EOF
NOTE: this machine's /proc is not mounted hidepid=invisible, so the demo
makes a host of its own: a pid and mount namespace whose /proc hides other
accounts' processes, declared by 'lockfile doctor --declare-host'. The
console and the scripted agent run inside it. What it does not protect:
any account outside it, on this machine's /proc, can still read the
plugins' processes (command lines, memory counters) while they run. Use no
real confidential file here; docs/host.md sets up a real host.

EOF
	sleep 2
	# In the new mount namespace: every procfs copied from this machine
	# goes (deepest first), then the host's own, which hides.
	unshare --pid --mount --fork --propagation private sh -c "set -e
	    for m in \$(awk '{for (i = 7; i <= NF; i++) if (\$i == \"-\") {
	        if (\$(i + 1) == \"proc\") print \$5; break }}' \
	        /proc/self/mountinfo | sort -r); do umount -l \"\$m\"; done
	    mount -t proc -o hidepid=invisible proc /proc
	    $DECLARE >/dev/null
	    $RUN_BOTH"
fi
echo
echo "The audit (what only the console account can read):"
runuser -u lockfile -- "$LOCKFILE" audit --home "$HOME_L" | tail -n 8
