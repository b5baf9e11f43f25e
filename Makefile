# The README's two commands: `make demo` and `make check`. Both install what
# they need (Debian 12, as root) and build with Meson + Ninja.
BUILD ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
INSTALL_BUILD ?= build-install

.PHONY: all deps deps-deploy build build-asan build-fuzz check demo docker bench clean lint install \
	reproduce

all: build

deps:
	scripts/install-deps.sh

# Only what the Docker deployment needs on the operator's host (no test
# toolchain, no npm, no test accounts): `make docker` uses it.
deps-deploy:
	scripts/install-deps.sh --deploy

$(BUILD)/build.ninja:
	meson setup $(BUILD)

$(BUILD_ASAN)/build.ninja:
	meson setup $(BUILD_ASAN) -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false

$(BUILD_FUZZ)/build.ninja:
	CC=clang meson setup $(BUILD_FUZZ) -Dfuzz=true -Db_sanitize=address,undefined \
	    -Db_lundef=false -Dbench=false -Dtests=false

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

build-asan: $(BUILD_ASAN)/build.ninja
	ninja -C $(BUILD_ASAN)

build-fuzz: $(BUILD_FUZZ)/build.ninja
	ninja -C $(BUILD_FUZZ)

check: deps build build-asan build-fuzz
	chmod -R a+rX . 2>/dev/null || true
	BUILD=$(CURDIR)/$(BUILD) BUILD_ASAN=$(CURDIR)/$(BUILD_ASAN) \
	    BUILD_FUZZ=$(CURDIR)/$(BUILD_FUZZ) tests/run-all

# docs/host.md: PREFIX/bin/lockfile (root's), /etc/lockfile/{trusted_root.json,
# trust.toml,system.toml}, PREFIX/lib/tmpfiles.d/lockfile.conf, from a tree
# built without the tests (a host needs only the libraries). Run as root;
# DESTDIR=DIR stages it under DIR; INSTALL_BUILD=DIR installs from another
# configured tree (tests/e2e/test_host_guide.py uses the plain build's).
$(INSTALL_BUILD)/build.ninja:
	meson setup $(INSTALL_BUILD) -Dtests=false -Dbench=false -Dplugins=false

install: $(INSTALL_BUILD)/build.ninja
	ninja -C $(INSTALL_BUILD)
	meson install -C $(INSTALL_BUILD) --no-rebuild

demo: deps build
	chmod -R a+rX . 2>/dev/null || true
	scripts/demo.sh $(CURDIR)/$(BUILD)

# The Docker deployment (docs/docker.md): lox and the seccomp profile on the
# host, the console and agent images. DOCKER_BASE=IMAGE builds on a registry's base
# instead of the local debootstrap one.
docker: deps-deploy build
	meson install -C $(BUILD) --no-rebuild --tags host
	docker/build-images.sh --build $(CURDIR)/$(BUILD) \
	    $(if $(DOCKER_BASE),--base $(DOCKER_BASE),--local-base)

bench: deps build
	bench/run-all $(CURDIR)/$(BUILD)

# Build this tree twice (another directory, user, umask, time zone, clock)
# and compare every shipped file byte for byte (docs/releases.md).
reproduce:
	scripts/reproduce.sh

# The same checks as the lint-* suites of `make check`.
lint: build
	scripts/lint/cppcheck $(CURDIR)/$(BUILD)
	scripts/lint/banned
	scripts/lint/layers --self-test
	scripts/lint/length --self-test
	scripts/lint/cycles --self-test

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ) $(INSTALL_BUILD) build-uids
