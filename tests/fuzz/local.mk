# tests/fuzz/local.mk - fuzz targets for the parsers that read untrusted
# input (docs/security.md, "Fuzzing").  Included by the top-level
# Makefile.am.
#
# Each target is tests/fuzz/fuzz_NAME.c.  Two builds of them:
#  - tests/fuzz/replay (make check): every target run on its committed
#    corpus, tests/fuzz/corpus/NAME/, by whatever compiler configure found,
#    with ASan and UBSan where it has them (FUZZ_SAN_CFLAGS).
#  - tests/fuzz/fuzz-NAME (make fuzz, or all of them with --enable-fuzz):
#    the libFuzzer binaries, built by clang (FUZZ_CC).  Run them with
#    tests/fuzz/campaign.sh.
# Adding a target: its file here and a line in tests/fuzz/targets.def.

FUZZ_TARGET_SOURCES = \
	tests/fuzz/fuzz_wire.c \
	tests/fuzz/fuzz_envelope.c \
	tests/fuzz/fuzz_jobspec.c \
	tests/fuzz/fuzz_directive.c \
	tests/fuzz/fuzz_sbatch.c \
	tests/fuzz/fuzz_resource.c \
	tests/fuzz/fuzz_arrayspec.c \
	tests/fuzz/fuzz_config.c \
	tests/fuzz/fuzz_sim_trace.c \
	tests/fuzz/fuzz_mig.c \
	tests/fuzz/fuzz_ckptspec.c \
	tests/fuzz/fuzz_spotnotice.c \
	tests/fuzz/fuzz_reclaims.c \
	tests/fuzz/fuzz_limits.c \
	tests/fuzz/fuzz_http_query.c \
	tests/fuzz/fuzz_telemetry.c \
	tests/fuzz/fuzz_tm.c \
	tests/fuzz/fuzz_session.c \
	tests/fuzz/fuzz_link.c

# The code under test, compiled again for each build (with the sanitizers,
# and for libFuzzer with its coverage instrumentation): all of libhpcq, as
# an archive so each program takes only what it calls and a parser added
# to libhpcq needs nothing here, plus the parsers that live outside it.
FUZZ_EXTRA_SOURCES = tests/fuzz/fuzz.c sim/sim_trace.c worker/gpu.c \
	scheduler/limit_list.c scheduler/web/api_query.c scheduler/gpu_report.c
FUZZ_LIBS = $(JANSSON_LIBS) $(ZLIB_LIBS) $(MUNGE_LIBS) $(NETTLE_LIBS) $(MHD_LIBS) -lm

check_LIBRARIES = tests/fuzz/libhpcq-san.a
tests_fuzz_libhpcq_san_a_SOURCES = $(libhpcq_a_SOURCES)
nodist_tests_fuzz_libhpcq_san_a_SOURCES = $(nodist_libhpcq_a_SOURCES)
tests_fuzz_libhpcq_san_a_CFLAGS = $(AM_CFLAGS) $(FUZZ_SAN_CFLAGS)

check_PROGRAMS += tests/fuzz/replay
TESTS += tests/fuzz/replay
tests_fuzz_replay_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz.h \
	$(FUZZ_TARGET_SOURCES) $(FUZZ_EXTRA_SOURCES)
tests_fuzz_replay_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS) $(FUZZ_SAN_CFLAGS)
tests_fuzz_replay_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_SAN_LDFLAGS)
tests_fuzz_replay_LDADD = tests/fuzz/libhpcq-san.a $(FUZZ_LIBS)

EXTRA_DIST += tests/fuzz/targets.def tests/fuzz/corpus tests/fuzz/dict \
	tests/fuzz/campaign.sh tests/fuzz/capture.py tests/fuzz/RESULTS.md

# make fuzz: plain make rules, since automake compiles with one $(CC).
# The database code is left out of the archive: no target reads it, and
# its generated db/migrations.c lives in the build tree.
FUZZ_NAMES = $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_TARGET_SOURCES))
FUZZ_BINS = $(FUZZ_NAMES:%=tests/fuzz/fuzz-%)
FUZZ_LIB_OBJS = $(patsubst %.c,tests/fuzz/obj/%.o,$(filter-out db/%,$(filter %.c,$(libhpcq_a_SOURCES))))
FUZZ_EXTRA_OBJS = $(FUZZ_EXTRA_SOURCES:%.c=tests/fuzz/obj/%.o)
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -DHPCQ_LIBFUZZER \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	$(WARN_CFLAGS) -DHAVE_CONFIG_H -I$(top_builddir) $(AM_CPPFLAGS) \
	$(JANSSON_CFLAGS) $(ZLIB_CFLAGS) $(MUNGE_CFLAGS) $(NETTLE_CFLAGS) $(MHD_CFLAGS)

.PHONY: fuzz
fuzz: $(FUZZ_BINS)
if ENABLE_FUZZ
all-local: fuzz
endif

tests/fuzz/obj/%.o: $(srcdir)/%.c config.h
	@test -n "$(FUZZ_CC)" || { echo "make fuzz needs clang (apt-get install clang), then configure again" >&2; exit 1; }
	@mkdir -p $(@D)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

.PRECIOUS: tests/fuzz/obj/%.o
tests/fuzz/obj/libhpcq.a: $(FUZZ_LIB_OBJS)
	$(AM_V_AR)rm -f $@ && $(AR) $(ARFLAGS) $@ $^ && $(RANLIB) $@

tests/fuzz/fuzz-%: tests/fuzz/obj/tests/fuzz/fuzz_%.o $(FUZZ_EXTRA_OBJS) tests/fuzz/obj/libhpcq.a
	$(AM_V_CCLD)$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(FUZZ_LIBS) $(LIBS)

-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_EXTRA_OBJS:.o=.d) \
	$(FUZZ_NAMES:%=tests/fuzz/obj/tests/fuzz/fuzz_%.d)

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf tests/fuzz/obj $(FUZZ_BINS)
