#!/bin/sh
# Build the console and agent images from this clone (docs/docker.md).
#
#   docker/build-images.sh [--build DIR] [--base IMAGE | --local-base]
#       [--trust DIR] [--plugin-build DIR] [--plugins "NAME..."]
#       [--tag PREFIX] [--record FILE] [--build-arg NAME=VALUE]... [--hub]
#
#   --build DIR         the Meson build to install from (default build/)
#   --base IMAGE        the base image (default: the Dockerfile's pinned
#                       debian:bookworm-slim digest, from a registry)
#   --local-base        no registry: build the base with debootstrap
#                       (docker/mkbase.sh, cached by content)
#   --trust DIR         the trust configuration: DIR/trust.toml and
#                       DIR/trusted_root.json, and DIR/marketplace/ if the
#                       marketplace is local (its url in trust.toml must
#                       then be /usr/local/share/lockfile/marketplace).
#                       Default: a local marketplace of this build's
#                       plugins, signed once by a throw-away Sigstore whose
#                       keys are deleted after signing (below)
#   --plugin-build DIR  where the local marketplace takes the plugins from
#                       (DIR/plugins/NAME/{NAME,manifest.json}; default the
#                       build)
#   --plugins "..."     the plugins installed into the console's store at
#                       build time (default every official plugin: the
#                       names the build lists in plugins/official.txt,
#                       from plugins/meson.build; "" for none)
#   --tag PREFIX        image names PREFIX-console and PREFIX-agent
#                       (default lockfile), for people; lox and compose
#                       use the IDs (below)
#   --record FILE       where the images' IDs are recorded for lox
#                       ("console ID", "agent ID"; default
#                       /etc/lockfile/images, lox's default)
#   --build-arg N=V     passed to docker build: LOCKFILE_UID, LOCKFILE_GID,
#                       CLIENTS_GID, AGENT_UID, AGENT_GID, ALLOWED_UIDS,
#                       HUB_UID
#   --hub               also the lockhub image (PREFIX-hub, "hub ID"):
#                       docs/docker.md, "Hub mode"
#
# The images take whatever `meson install` installs (staged with DESTDIR;
# the host-only tools, tag "host", stay out). Run as root (debootstrap, and
# the staging must be root-owned). DOCKER names the docker client. Prints
# "console ID" and "agent ID": the IDs this build produced (docker build
# --iidfile), which lox names the images by, never a tag anyone can move
# (docs/docker.md, "Images by ID").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
DOCKER=${DOCKER:-docker}
build=$repo/build
base=
local_base=0
trust=
plugin_build=
plugins=
plugins_given=0
prefix=lockfile
record=/etc/lockfile/images
args=
targets="console agent"

usage() {
	sed -n '3,44p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 64
}
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--local-base) local_base=1; shift ;;
	--trust) trust=$2; shift 2 ;;
	--plugin-build) plugin_build=$2; shift 2 ;;
	--plugins) plugins=$2; plugins_given=1; shift 2 ;;
	--tag) prefix=$2; shift 2 ;;
	--record) record=$2; shift 2 ;;
	--hub) targets="console agent hub"; shift ;;
	--build-arg)
		case $2 in
		LOCKFILE_UID=*|LOCKFILE_GID=*|CLIENTS_GID=*|AGENT_UID=*|\
		AGENT_GID=*|ALLOWED_UIDS=*|HUB_UID=*) ;;
		*) echo "build-images: unknown build arg ${2%%=*}" >&2; exit 64 ;;
		esac
		args="$args --build-arg $2"; shift 2 ;;
	*) usage ;;
	esac
done
case $prefix in *[!a-z0-9._-]*|"") echo "build-images: bad --tag" >&2; exit 64 ;; esac
plugin_build=${plugin_build:-$build}
[ -x "$build/lockfile" ] || { echo "build-images: no $build/lockfile (make build)" >&2; exit 1; }
if [ "$plugins_given" = 0 ]; then
	# Every official plugin the tree builds (plugins/meson.build writes
	# the list): no second list here to forget a new one in. (--plugins ""
	# installs none: the release's images, .github/workflows/release.yml.)
	[ -s "$build/plugins/official.txt" ] || { echo "build-images: no $build/plugins/official.txt (a build with -Dplugins=true)" >&2; exit 1; }
	plugins=$(tr '\n' ' ' < "$build/plugins/official.txt")
fi

stage=$(mktemp -d /tmp/lockfile-stage.XXXXXX)
signer=
cleanup() { rm -rf "$stage" "$stage.log" "$stage.ids"; [ -z "$signer" ] || rm -rf "$signer"; }
trap cleanup EXIT INT TERM
chmod 0755 "$stage"
mkdir -p "$stage/root" "$stage/etc-lockfile" "$stage/marketplace"
cp "$here/runtime-packages" "$here/hub-packages" "$stage/"
mkdir -p "$stage/hub-debs"

# What `meson install` installs (prefix /usr/local), without the host tools.
meson install -C "$build" --destdir "$stage/root" --no-rebuild --quiet \
    --tags runtime >/dev/null

cp "$here/container.toml" "$here/system.toml" "$stage/etc-lockfile/"
if [ -n "$trust" ]; then
	cp "$trust/trust.toml" "$trust/trusted_root.json" "$stage/etc-lockfile/"
	[ ! -d "$trust/marketplace" ] || cp -R "$trust/marketplace/." "$stage/marketplace/"
else
	# A local marketplace: this build's plugins, published with
	# marketplace/build.py and signed on their tags by a Sigstore made for
	# this one build (tests/sigstore/testsign: CA, transparency log and CT
	# log keys of its own). Its keys are deleted when the signing is done,
	# so the image trusts exactly these bytes and nothing anyone can sign
	# later.
	testsign=$build/tests/sigstore/testsign
	[ -x "$testsign" ] || { echo "build-images: no $testsign (a build with -Dtests=true)" >&2; exit 1; }
	signer=$(mktemp -d /tmp/lockfile-signer.XXXXXX)
	"$testsign" init "$signer/ts" >/dev/null
	market=$stage/marketplace
	repo_id=local/lockfile
	# The numeric repository and owner ids (Fulcio .1.15, .1.17) this
	# one-off signer writes and trust.toml pins (docs/marketplace.md).
	repo_num=1 owner_num=1
	# shellcheck disable=SC2086
	"$repo/marketplace/build.py" plugins --build "$plugin_build" --out "$market" $plugins >/dev/null
	# The index version is the build's time: a home volume that recorded
	# an earlier image's index takes this one as newer (an index version
	# never goes back, nor changes its bytes: docs/marketplace.md).
	now=$(date +%s)
	SOURCE_DATE_EPOCH=$now "$repo/marketplace/build.py" index --out "$market" \
	    --repository "$repo_id" --version "$now" --expires-days 3650 >/dev/null
	"$repo/marketplace/build.py" artifacts --out "$market" | while read -r tag rel; do
		"$testsign" sign "$signer/ts" \
		    --identity "https://github.com/$repo_id/.github/workflows/release.yml@refs/tags/$tag" \
		    --issuer https://token.actions.githubusercontent.com \
		    --repo "https://github.com/$repo_id" --ref "refs/tags/$tag" \
		    --repo-id "$repo_num" --owner-id "$owner_num" \
		    "$market/$rel" > "$market/$rel.sigstore.json"
	done
	cp "$signer/ts/trusted_root.json" "$stage/etc-lockfile/"
	rm -rf "$signer"
	signer=
	cat > "$stage/etc-lockfile/trust.toml" <<EOF
# A local marketplace, signed once at image build (docker/build-images.sh)
release_repository = "$repo_id"
release_repository_id = $repo_num
release_owner_id = $owner_num

[marketplaces.local]
url = "/usr/local/share/lockfile/marketplace"
repository = "$repo_id"
repository_id = $repo_num
owner_id = $owner_num
official = true
EOF
fi
chown -R root:root "$stage"
chmod -R go-w,a+rX "$stage"

net=
if [ "$local_base" = 1 ]; then
	base=$(DOCKER=$DOCKER "$here/mkbase.sh" --cache "$build/docker-cache")
	net="--network none"	# everything is in the base
fi
# The hub's libraries on a local base, which builds without a network:
# Debian's own .debs, fetched once into the cache (apt-get download checks
# them against the host's signed package lists). Staged for every target:
# the classic builder builds every stage before the one asked for, and the
# hub stage comes before the agent's (docker/Dockerfile).
if [ "$local_base" = 1 ]; then
	debs=$build/docker-cache/hub-debs
	mkdir -p "$debs"
	for p in $(grep -v '^#' "$here/hub-packages"); do
		ls "$debs/${p}_"*.deb >/dev/null 2>&1 ||
		    (cd "$debs" && apt-get download -q "$p" >/dev/null 2>&1) ||
		    { echo "build-images: apt-get download $p failed" >&2; exit 1; }
	done
	cp "$debs"/*.deb "$stage/hub-debs/"
	chmod 0644 "$stage/hub-debs/"*.deb
fi
basearg=
[ -z "$base" ] || basearg="--build-arg BASE=$base"
log=$stage.log
ids=$stage.ids
: > "$ids"
for target in $targets; do
	# The classic builder writes its errors on stdout: shown on failure.
	# shellcheck disable=SC2086
	if ! "$DOCKER" build $net $basearg $args --build-arg "PLUGINS=$plugins" \
	    -f "$here/Dockerfile" --target "$target" -t "$prefix-$target" \
	    --iidfile "$stage/$target.iid" "$stage" >"$log" 2>&1; then
		tail -25 "$log" >&2
		rm -f "$log"
		exit 1
	fi
	id=$(cat "$stage/$target.iid")
	case $id in
	sha256:*) ;;
	*) echo "build-images: docker build gave no image ID" >&2; exit 1 ;;
	esac
	echo "$target $id" >> "$ids"
done
rm -f "$log"
# The record lox reads: written whole, then renamed over the old one.
mkdir -p "$(dirname "$record")"
install -m 0644 "$ids" "$record.new"
mv "$record.new" "$record"
cat "$ids"
rm -f "$ids"
