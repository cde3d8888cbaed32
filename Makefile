# gradeq build.
#
#   make            build/gradeq, build/gradeq-worker, test programs
#   make check      every test: plain, then under ASan+UBSan, then the fuzzers
#   make test       the plain suite only
#   make test-san   the ASan+UBSan suite only
#   make san TARGETS=build-san/tests/test_x   targets of the ASan+UBSan build
#   make fuzz       each libFuzzer target for FUZZ_SECONDS
#   make bench      benchmarks, each beside a baseline measured in the same run
#   make demo       a demo of the main job, with its own redis-server
#   make deps       install the Debian packages the build and tests need
#   make test-vm    a part of the suite in the cgroup v2 + systemd guest (tests/vm.sh)
#
# Every build first checks that the build's packages are installed
# ($(B)/.deps, tests/install-deps.sh build): as root it installs what is
# missing, else it names the packages and stops. pkg-config is asked only
# after that (the flags below are expanded once, at their first use).
#
# Sources are found by directory: sandbox/*.c -> libsandbox, queue/*.c ->
# libqueue, worker/*/*.c -> libworker except worker/*/main_NAME.c: build/NAME.
# tests/unit/test_*.c and tests/progs/*.c are one binary per file.

B        ?= build
CC       ?= cc
SAN      ?=
CSTD     := -std=c11 -D_GNU_SOURCE
# What asks the compiler or pkg-config is worked out on first use, in a
# recipe: when make parses this file a fresh machine has neither yet.
WARN_CC   = $(eval WARN_CC := $(shell $(CC) -Werror -Wno-format-truncation -E -x c /dev/null >/dev/null 2>&1 && echo -Wno-format-truncation))$(WARN_CC)
WARN     = -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-missing-field-initializers $(WARN_CC)
OPT      ?= -O2 -g
PKGS     := libseccomp hiredis msgpack zlib
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS)))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS)))$(PKG_LIBS)
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) $(SAN) -I. $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lpthread $(LDLIBS)
DEPS_OK  := $(B)/.deps

SBX_SRC  := $(wildcard sandbox/*.c)
Q_SRC    := $(wildcard queue/*.c)
WK_MAIN  := $(wildcard worker/*/main_*.c)
WK_SRC   := $(filter-out $(WK_MAIN),$(wildcard worker/*/*.c))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
PROG_SRC := $(wildcard tests/progs/*.c)
BENCH_SRC:= $(wildcard tests/bench/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
TLIB_SRC := $(wildcard tests/lib/*.c)

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
LIBSBX := $(B)/libsandbox.a
LIBQ   := $(B)/libqueue.a
LIBWK  := $(B)/libworker.a
LIBS   := $(LIBWK) $(LIBQ) $(LIBSBX)
LIBT   := $(B)/libtest.a
BINS   := $(patsubst main_%.c,$(B)/%,$(notdir $(WK_MAIN)))
UNITS  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
PROGS  := $(patsubst tests/progs/%.c,$(B)/progs/%,$(PROG_SRC))
BENCHES:= $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRC))

.PHONY: all check test test-san san fuzz bench demo deps clean install install-lib test-vm
all: $(BINS) $(PROGS)

# The build's packages, checked once per build dir (and again when the
# list changes); every compile and link waits for it.
$(DEPS_OK): tests/install-deps.sh
	@CC="$(CC)" tests/install-deps.sh build
	@mkdir -p $(dir $@); touch $@

$(B)/obj/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(LIBSBX): $(call obj,$(SBX_SRC))
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^
$(LIBQ): $(call obj,$(Q_SRC))
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^
$(LIBWK): $(call obj,$(WK_SRC))
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^
$(LIBT): $(call obj,$(TLIB_SRC))
	@mkdir -p $(dir $@); rm -f $@; ar rcs $@ $^

# worker/*/main_NAME.c is the command build/NAME.
define bin_rule
$(B)/$(patsubst main_%.c,%,$(notdir $(1))): $(call obj,$(1)) $(LIBS)
	$$(CC) $$(CFLAGS_ALL) $$^ -o $$@ $$(LDLIBS_ALL)
endef
$(foreach m,$(WK_MAIN),$(eval $(call bin_rule,$(m))))
# `gradeq` is started once a command (a `gradeq run` a test, thousands in a
# row): it is a static PIE, whose start skips the dynamic loader (the
# mappings, relocations and symbol lookups of libc and of each library, at
# every start). The Debian -dev packages ship the archives. Its commands
# that talk to Redis are gradeq-queue's, linked dynamically: they resolve
# host names through glibc's NSS modules (main_gradeq.c). The sanitizers'
# runtimes need the dynamic loader: a SAN build links it as the others.
$(B)/gradeq: LDLIBS_ALL = $(if $(SAN),,-static-pie) $(PKG_LIBS) -lpthread $(LDLIBS)

# Hostile programs: built plain (no sanitizer: they run inside the sandbox).
$(B)/progs/%: tests/progs/%.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	cc -std=gnu11 -O1 -Wall -Wno-unused-result $< -o $@ -lpthread

$(B)/tests/%: $(call obj,tests/unit/%.c) $(LIBT) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL) -lcmocka

$(B)/bench/%: $(call obj,tests/bench/%.c) $(LIBT) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $^ -o $@ $(LDLIBS_ALL)

# Fuzz targets: the decoders (queue/) and the problem readers (those of
# worker/problem/ that run nothing, and what they call), compiled once
# with coverage into $(B)/fuzzobj, linked with each target.
FUZZ_SECONDS ?= 20
FUZZ_CFLAGS = $(CSTD) -O1 -g -fsanitize=address,undefined -I. $(PKG_CFLAGS)
FUZZ_LIB_SRC := $(Q_SRC) worker/common/text.c worker/common/readfile.c worker/common/words.c \
	$(filter-out worker/problem/prepare.c worker/problem/problem_job.c,$(wildcard worker/problem/*.c))
$(B)/fuzzobj/%.o: %.c | $(DEPS_OK) deps
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(B)/fuzz/%: tests/fuzz/%.c $(patsubst %.c,$(B)/fuzzobj/%.o,$(FUZZ_LIB_SRC)) | $(DEPS_OK) deps
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ $(PKG_LIBS)

deps: | $(DEPS_OK)
	@tests/install-deps.sh

# What includes cmocka waits for the rest of the packages too, also under -j
# (make -j test would otherwise compile the units beside the install).
$(call obj,$(UNIT_SRC) $(TLIB_SRC)): | deps

test: deps all $(UNITS)
	@B=$(B) tests/run-all.sh

SAN_BUILD = B=build-san CC=clang OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
test-san:
	@$(MAKE) --no-print-directory $(SAN_BUILD) test

# Targets of the sanitized build alone: make san TARGETS=build-san/tests/test_sandbox
TARGETS ?= all
san:
	@$(MAKE) --no-print-directory $(SAN_BUILD) $(TARGETS)

fuzz: deps $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
	@B=$(B) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run-fuzz.sh

# One after the other, also under make -j: two suites side by side would
# share the machine's cores and interleave their lines.
check:
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory test-san
	@$(MAKE) --no-print-directory fuzz

bench: deps all $(BENCHES)
	@B=$(B) tests/bench/run.sh

# The guest of ../shared/vm (cgroup v2, systemd): VM_TESTS as tests/vm.sh
# takes them, e.g. make test-vm VM_TESTS="--unit check".
VM_TESTS ?=
test-vm:
	@tests/vm.sh $(VM_TESTS)

demo: deps all
	@B=$(B) deploy/demo.sh

clean:
	rm -rf build build-san

# make install [PREFIX=/usr/local] [DESTDIR=]: gradeq into bin, gradeq-worker
# into sbin, the man pages, the systemd units (ExecStart pointed at SBINDIR,
# their documentation at DOCDIR),
# and as documentation the example environment file, the Redis config and
# ACL, operations.md; the default language presets into share/gradeq (found
# there beside bin/ and sbin/). Nothing goes to /etc: configuration is the
# admin's.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/gradeq
UNITDIR ?= $(PREFIX)/lib/systemd/system

install: $(B)/gradeq $(B)/gradeq-queue $(B)/gradeq-worker
	install -D -m 0755 $(B)/gradeq $(DESTDIR)$(BINDIR)/gradeq
	install -D -m 0755 $(B)/gradeq-queue $(DESTDIR)$(BINDIR)/gradeq-queue
	install -D -m 0755 $(B)/gradeq-worker $(DESTDIR)$(SBINDIR)/gradeq-worker
	install -D -m 0644 docs/man/gradeq.1 $(DESTDIR)$(MANDIR)/man1/gradeq.1
	install -D -m 0644 docs/man/gradeq-worker.8 $(DESTDIR)$(MANDIR)/man8/gradeq-worker.8
	install -d $(DESTDIR)$(UNITDIR)
	for u in gradeq-worker.service gradeq-worker@.service; do \
	    sed -e 's|^ExecStart=/usr/local/sbin/gradeq-worker|ExecStart=$(SBINDIR)/gradeq-worker|' \
	        -e 's|file:/usr/local/share/doc/gradeq/|file:$(DOCDIR)/|' \
	        deploy/systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -D -m 0644 deploy/systemd/gradeq-worker.env $(DESTDIR)$(DOCDIR)/gradeq-worker.env
	install -D -m 0644 deploy/redis/redis.conf $(DESTDIR)$(DOCDIR)/redis/redis.conf
	install -D -m 0644 deploy/redis/users.acl $(DESTDIR)$(DOCDIR)/redis/users.acl
	install -D -m 0755 deploy/redis/acl-passwords.sh $(DESTDIR)$(DOCDIR)/redis/acl-passwords.sh
	install -D -m 0644 docs/operations.md $(DESTDIR)$(DOCDIR)/operations.md
	install -D -m 0644 docs/protocol.md $(DESTDIR)$(DOCDIR)/protocol.md
	install -D -m 0644 docs/security.md $(DESTDIR)$(DOCDIR)/security.md
	install -D -m 0644 deploy/languages $(DESTDIR)$(PREFIX)/share/gradeq/languages

# build/libgradeq.so: the sandbox library for other languages (clients/python
# loads it with ctypes). Its own -fPIC objects, never sanitized (it is loaded
# into interpreters that do not carry the sanitizer runtimes); the exports
# are exactly the functions sandbox.h declares, listed by a version script
# generated from the header.
SO_MAJOR := 1
SO_NAME  := libgradeq.so.$(SO_MAJOR)
SO_FILE  := $(SO_NAME).0.0
LIBSO    := $(B)/libgradeq.so
SO_CFLAGS = $(CSTD) $(WARN) $(OPT) -fPIC -I. $(PKG_CFLAGS) $(CFLAGS)
all: $(LIBSO)

$(B)/pic/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(SO_CFLAGS) -MMD -MP -c $< -o $@

$(B)/libgradeq.map: sandbox/sandbox.h
	@mkdir -p $(dir $@)
	{ echo 'GRADEQ_$(SO_MAJOR) { global:'; \
	  grep -o '\bsbx_[a-z_]*(' $< | tr -d '(' | sort -u | sed 's/$$/;/'; \
	  echo 'local: *; };'; } > $@

$(B)/$(SO_FILE): $(patsubst %.c,$(B)/pic/%.o,$(SBX_SRC)) $(B)/libgradeq.map
	$(CC) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=$(B)/libgradeq.map -Wl,-z,defs \
	    $(filter %.o,$^) -o $@ -lseccomp -lpthread

$(LIBSO): $(B)/$(SO_FILE)
	ln -sf $(SO_FILE) $(B)/$(SO_NAME)
	ln -sf $(SO_FILE) $@

LIBDIR ?= $(PREFIX)/lib
INCDIR ?= $(PREFIX)/include
install: install-lib
install-lib: $(LIBSO)
	install -D -m 0644 $(B)/$(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/libgradeq.so
	install -D -m 0644 sandbox/sandbox.h $(DESTDIR)$(INCDIR)/gradeq/sandbox.h
	[ -n "$(DESTDIR)" ] || ! command -v ldconfig >/dev/null || ldconfig

-include $(shell find $(B)/obj $(B)/pic $(B)/fuzzobj -name '*.d' 2>/dev/null)
